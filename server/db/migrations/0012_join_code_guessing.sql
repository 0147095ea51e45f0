-- Guessing join codes (server/invites/guessing.ts; issue 17, item 13). Wrong codes are kept a day, with the account
-- that tried them and their two groups of four: an account may miss a limited number of times a day, and a code near
-- which too many misses were made is locked (join_codes.locked_at) until an owner or manager rotates it. Both live
-- here, so a restart resets neither. The expression indexes find the codes near a wrong one (sharing a group).
CREATE TABLE "join_code_misses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"head" text NOT NULL,
	"tail" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "join_codes" ADD COLUMN "locked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "join_code_misses" ADD CONSTRAINT "join_code_misses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "join_code_misses_user_idx" ON "join_code_misses" USING btree ("user_id","at");--> statement-breakpoint
CREATE INDEX "join_code_misses_head_idx" ON "join_code_misses" USING btree ("head","at");--> statement-breakpoint
CREATE INDEX "join_code_misses_tail_idx" ON "join_code_misses" USING btree ("tail","at");--> statement-breakpoint
CREATE INDEX "join_codes_head_idx" ON "join_codes" USING btree (left("code", 4));--> statement-breakpoint
CREATE INDEX "join_codes_tail_idx" ON "join_codes" USING btree (right("code", 4));