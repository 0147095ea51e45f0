-- The posts a polled source has counted for a tracked query (server/tracking/poll.ts): each post once for each query
-- it matches, whichever query's search brought it, and never again when a later page or round brings it back.
CREATE TABLE "tracking_counted" (
	"saved_query_id" uuid NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tracking_counted_saved_query_id_source_external_id_pk" PRIMARY KEY("saved_query_id","source","external_id")
);
--> statement-breakpoint
ALTER TABLE "tracking_counted" ADD CONSTRAINT "tracking_counted_coverage_fk" FOREIGN KEY ("saved_query_id","source") REFERENCES "public"."tracking_coverage"("saved_query_id","source") ON DELETE cascade ON UPDATE no action;