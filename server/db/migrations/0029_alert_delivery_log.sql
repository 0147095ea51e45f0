-- Each alert delivery attempt and each "Send a test" (when, to whom, result, the receiver's status or error), the
-- newest 50 of each rule kept: shown on the Alerts page.
CREATE TABLE "alert_delivery_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule_id" uuid NOT NULL,
	"delivery_id" bigint,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"channel" "alert_channel" NOT NULL,
	"recipient" text NOT NULL,
	"ok" boolean NOT NULL,
	"status_code" integer,
	"error" text,
	"will_retry" boolean DEFAULT false NOT NULL,
	"test" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_delivery_log" ADD CONSTRAINT "alert_delivery_log_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_delivery_log" ADD CONSTRAINT "alert_delivery_log_delivery_id_alert_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."alert_deliveries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_delivery_log_rule_idx" ON "alert_delivery_log" USING btree ("rule_id","id");