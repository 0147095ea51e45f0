-- A source going silent may fire an alert (issue 54, item 4): the kind source_silent, its threshold in hours (1 to
-- 168), and the source an event is of, in the event's key (one per rule, silence start and source). The CHECK reads the
-- kind as text: the value added cannot be named as one in the transaction the migrator runs this in.
ALTER TYPE "public"."alert_kind" ADD VALUE 'source_silent';--> statement-breakpoint
ALTER TABLE "alert_events" DROP CONSTRAINT "alert_events_rule_window_key";--> statement-breakpoint
ALTER TABLE "alert_rules" DROP CONSTRAINT "alert_rules_threshold_check";--> statement-breakpoint
ALTER TABLE "alert_events" ADD COLUMN "source" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_rule_window_source_key" UNIQUE("rule_id","window_start","source");--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_threshold_check" CHECK (CASE "alert_rules"."kind"::text WHEN 'spike' THEN "alert_rules"."threshold" IS NULL
        WHEN 'volume' THEN "alert_rules"."threshold" >= 1
        WHEN 'source_silent' THEN "alert_rules"."threshold" BETWEEN 1 AND 168
        ELSE "alert_rules"."threshold" BETWEEN 1 AND 100 END);
