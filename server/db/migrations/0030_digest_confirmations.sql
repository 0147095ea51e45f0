-- Digests' outside addresses confirm once per workspace (double opt-in: a random single-use token, kept hashed) before
-- anything else is sent to them; each period's e-mails counted for the workspace's daily cap.
CREATE TABLE "digest_confirmations" (
	"workspace_id" text NOT NULL,
	"address" text NOT NULL,
	"digest_id" uuid,
	"token_hash" text,
	"requested_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "digest_confirmations_workspace_id_address_pk" PRIMARY KEY("workspace_id","address"),
	CONSTRAINT "digest_confirmations_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "digest_sends" ADD COLUMN "messages" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "digest_confirmations" ADD CONSTRAINT "digest_confirmations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "digest_confirmations" ADD CONSTRAINT "digest_confirmations_digest_id_digests_id_fk" FOREIGN KEY ("digest_id") REFERENCES "public"."digests"("id") ON DELETE set null ON UPDATE no action;