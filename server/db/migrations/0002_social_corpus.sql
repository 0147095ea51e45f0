CREATE TYPE "public"."media_type" AS ENUM('text', 'image', 'video', 'link');--> statement-breakpoint
CREATE TYPE "public"."platform" AS ENUM('x', 'instagram', 'tiktok', 'youtube', 'facebook', 'reddit');--> statement-breakpoint
CREATE TYPE "public"."post_kind" AS ENUM('original', 'reply', 'repost', 'quote');--> statement-breakpoint
CREATE TYPE "public"."sentiment_label" AS ENUM('positive', 'neutral', 'negative');--> statement-breakpoint
CREATE TABLE "posts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "posts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"platform" "platform" NOT NULL,
	"external_id" text NOT NULL,
	"author_id" bigint NOT NULL,
	"text" text NOT NULL,
	"language" text,
	"posted_at" timestamp with time zone NOT NULL,
	"kind" "post_kind" DEFAULT 'original' NOT NULL,
	"media" "media_type" DEFAULT 'text' NOT NULL,
	"likes" integer DEFAULT 0 NOT NULL,
	"comments" integer DEFAULT 0 NOT NULL,
	"shares" integer DEFAULT 0 NOT NULL,
	"views" bigint,
	"url" text,
	"hashtags" text[] DEFAULT '{}'::text[] NOT NULL,
	"mentions" text[] DEFAULT '{}'::text[] NOT NULL,
	"domains" text[] DEFAULT '{}'::text[] NOT NULL,
	"sentiment" real DEFAULT 0 NOT NULL,
	"sentiment_label" "sentiment_label" DEFAULT 'neutral' NOT NULL,
	"engagement" integer GENERATED ALWAYS AS (likes + comments + shares) STORED NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED NOT NULL
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "profiles_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"platform" "platform" NOT NULL,
	"external_id" text NOT NULL,
	"handle" text NOT NULL,
	"display_name" text NOT NULL,
	"followers" integer DEFAULT 0 NOT NULL,
	"following" integer DEFAULT 0 NOT NULL,
	"verified" boolean DEFAULT false NOT NULL,
	"bio" text DEFAULT '' NOT NULL,
	"country" text,
	"language" text,
	"avatar_url" text
);
--> statement-breakpoint
CREATE TABLE "saved_queries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"query" text NOT NULL,
	"filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "posts" ADD CONSTRAINT "posts_author_id_profiles_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."profiles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_queries" ADD CONSTRAINT "saved_queries_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_queries" ADD CONSTRAINT "saved_queries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "posts_platform_external_idx" ON "posts" USING btree ("platform","external_id");--> statement-breakpoint
CREATE INDEX "posts_posted_at_idx" ON "posts" USING btree ("posted_at");--> statement-breakpoint
CREATE INDEX "posts_author_posted_idx" ON "posts" USING btree ("author_id","posted_at");--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search");--> statement-breakpoint
CREATE INDEX "posts_hashtags_idx" ON "posts" USING gin ("hashtags");--> statement-breakpoint
CREATE INDEX "posts_mentions_idx" ON "posts" USING gin ("mentions");--> statement-breakpoint
CREATE INDEX "posts_text_trgm_idx" ON "posts" USING gin ("text" gin_trgm_ops);--> statement-breakpoint
CREATE UNIQUE INDEX "profiles_platform_external_idx" ON "profiles" USING btree ("platform","external_id");--> statement-breakpoint
CREATE INDEX "profiles_handle_idx" ON "profiles" USING btree (lower("handle"));--> statement-breakpoint
CREATE INDEX "saved_queries_workspace_idx" ON "saved_queries" USING btree ("workspace_id");