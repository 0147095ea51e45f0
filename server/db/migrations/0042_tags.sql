-- A workspace's categories and tags (issue 55, item 3; server/db/tags-schema.ts, server/tags): tags set on posts by a
-- person or by a rule (a query applied to past and new posts); manual rows win over rules.
CREATE TABLE "post_tags" (
	"workspace_id" text NOT NULL,
	"post_id" bigint NOT NULL,
	"tag_id" uuid NOT NULL,
	"set_by" text NOT NULL,
	"rule_id" uuid,
	"removed" boolean DEFAULT false NOT NULL,
	"user_id" uuid,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "post_tags_set_by_check" CHECK (("post_tags"."set_by" = 'manual' AND "post_tags"."rule_id" IS NULL) OR ("post_tags"."set_by" = 'rule' AND "post_tags"."rule_id" IS NOT NULL AND NOT "post_tags"."removed"))
);
--> statement-breakpoint
CREATE TABLE "tag_categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tag_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" text NOT NULL,
	"tag_id" uuid NOT NULL,
	"query" text NOT NULL,
	"cursor" bigint DEFAULT 0 NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workspace_id" text NOT NULL,
	"category_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_rule_id_tag_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."tag_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_categories" ADD CONSTRAINT "tag_categories_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_rules" ADD CONSTRAINT "tag_rules_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_rules" ADD CONSTRAINT "tag_rules_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_rules" ADD CONSTRAINT "tag_rules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_category_id_tag_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."tag_categories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "post_tags_manual_idx" ON "post_tags" USING btree ("tag_id","post_id") WHERE "post_tags"."rule_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "post_tags_rule_idx" ON "post_tags" USING btree ("rule_id","post_id") WHERE "post_tags"."rule_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "post_tags_workspace_post_idx" ON "post_tags" USING btree ("workspace_id","post_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tag_categories_workspace_name_idx" ON "tag_categories" USING btree ("workspace_id",lower("name"));--> statement-breakpoint
CREATE INDEX "tag_rules_tag_idx" ON "tag_rules" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "tag_rules_workspace_idx" ON "tag_rules" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_category_name_idx" ON "tags" USING btree ("category_id",lower("name"));--> statement-breakpoint
CREATE INDEX "tags_workspace_idx" ON "tags" USING btree ("workspace_id");