-- Tracking a saved query (issue 54): its sources and on/off, and per (query, source) its coverage (tracking since,
-- backfilled back to, last post, the current gap with its reason and span, the polling cursors) with posts per day.
CREATE TABLE "saved_query_tracking" (
	"saved_query_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"sources" text[] DEFAULT '{}'::text[] NOT NULL,
	"tracking_since" timestamp with time zone,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking_coverage" (
	"saved_query_id" uuid NOT NULL,
	"source" text NOT NULL,
	"tracking_since" timestamp with time zone DEFAULT now() NOT NULL,
	"backfilled_to" timestamp with time zone,
	"last_post_at" timestamp with time zone,
	"last_poll_at" timestamp with time zone,
	"gap_reason" text,
	"gap_message" text,
	"gap_since" timestamp with time zone,
	"gap_until" timestamp with time zone,
	"cursors" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "tracking_coverage_saved_query_id_source_pk" PRIMARY KEY("saved_query_id","source")
);
--> statement-breakpoint
CREATE TABLE "tracking_coverage_days" (
	"saved_query_id" uuid NOT NULL,
	"source" text NOT NULL,
	"day" date NOT NULL,
	"posts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "tracking_coverage_days_saved_query_id_source_day_pk" PRIMARY KEY("saved_query_id","source","day")
);
--> statement-breakpoint
ALTER TABLE "saved_query_tracking" ADD CONSTRAINT "saved_query_tracking_saved_query_id_saved_queries_id_fk" FOREIGN KEY ("saved_query_id") REFERENCES "public"."saved_queries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_query_tracking" ADD CONSTRAINT "saved_query_tracking_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_coverage" ADD CONSTRAINT "tracking_coverage_saved_query_id_saved_queries_id_fk" FOREIGN KEY ("saved_query_id") REFERENCES "public"."saved_queries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_coverage_days" ADD CONSTRAINT "tracking_coverage_days_coverage_fk" FOREIGN KEY ("saved_query_id","source") REFERENCES "public"."tracking_coverage"("saved_query_id","source") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tracking_coverage_source_idx" ON "tracking_coverage" USING btree ("source");