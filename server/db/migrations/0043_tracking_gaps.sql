-- The gaps of a tracked query's coverage that have closed (server/tracking/coverage.ts): reason, sentence and span, kept
-- so that the coverage panel says what was missed after the source answered again; the open gap stays in tracking_coverage.
CREATE TABLE "tracking_gaps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"saved_query_id" uuid NOT NULL,
	"source" text NOT NULL,
	"reason" text NOT NULL,
	"message" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tracking_gaps" ADD CONSTRAINT "tracking_gaps_coverage_fk" FOREIGN KEY ("saved_query_id","source") REFERENCES "public"."tracking_coverage"("saved_query_id","source") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tracking_gaps_coverage_idx" ON "tracking_gaps" USING btree ("saved_query_id","source","ended_at");