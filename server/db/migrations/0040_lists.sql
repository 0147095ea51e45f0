-- A workspace's named lists (issue 55): authors, sites or words that queries read by name (server/query/lists.ts).
CREATE TABLE "query_lists" (
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"items" text[] DEFAULT '{}'::text[] NOT NULL,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_lists_workspace_id_name_pk" PRIMARY KEY("workspace_id","name"),
	CONSTRAINT "query_lists_kind_check" CHECK ("query_lists"."kind" IN ('authors', 'sites', 'words')),
	CONSTRAINT "query_lists_name_check" CHECK ("query_lists"."name" ~ '^[a-z0-9_-]{1,40}$'),
	CONSTRAINT "query_lists_items_check" CHECK (cardinality("query_lists"."items") <= 1000)
);
--> statement-breakpoint
ALTER TABLE "query_lists" ADD CONSTRAINT "query_lists_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_lists" ADD CONSTRAINT "query_lists_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;