CREATE TABLE "sentiment_corrections" (
	"workspace_id" text NOT NULL,
	"post_id" bigint NOT NULL,
	"label" "sentiment_label" NOT NULL,
	"corrected_by" uuid,
	"corrected_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sentiment_corrections_workspace_id_post_id_pk" PRIMARY KEY("workspace_id","post_id")
);
--> statement-breakpoint
ALTER TABLE "sentiment_corrections" ADD CONSTRAINT "sentiment_corrections_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sentiment_corrections" ADD CONSTRAINT "sentiment_corrections_corrected_by_users_id_fk" FOREIGN KEY ("corrected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;