-- Source credentials (Reddit, YouTube, X) encrypted under SECRETS_KEY, their daily quota use, Hacker News as a platform,
-- and per run the posts removed at the source and the pages of results (the page budget).
CREATE TYPE "public"."source_credential_kind" AS ENUM('reddit', 'youtube', 'x');--> statement-breakpoint
ALTER TYPE "public"."platform" ADD VALUE 'hackernews';--> statement-breakpoint
CREATE TABLE "source_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" "source_credential_kind" NOT NULL,
	"name" text NOT NULL,
	"secret" "bytea" NOT NULL,
	"key_id" text NOT NULL,
	"daily_quota" integer,
	"last_test_at" timestamp with time zone,
	"last_test_ok" boolean,
	"last_test_message" text,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "source_quota_usage" (
	"credential_id" uuid NOT NULL,
	"day" date NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "source_quota_usage_credential_id_day_pk" PRIMARY KEY("credential_id","day")
);
--> statement-breakpoint
ALTER TABLE "scrape_runs" ADD COLUMN "removed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scrape_runs" ADD COLUMN "result_pages" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "source_credentials" ADD CONSTRAINT "source_credentials_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_quota_usage" ADD CONSTRAINT "source_quota_usage_credential_id_source_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."source_credentials"("id") ON DELETE cascade ON UPDATE no action;