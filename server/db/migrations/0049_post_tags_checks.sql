-- A post's tag is checked by one foreign key, not three (issue 55, item 4; docs/tags.md): PostgreSQL checks a key row
-- by row, and a rule's past matches are written by the hundred thousand, where the workspace's, the tag's and the
-- rule's look-ups took 60 % of the write. A rule row is checked by its rule and that rule's tag (a rule's tag never
-- changes); a manual row by its tag, through `manual_tag_id`, null on a rule row, whose check is then skipped. The
-- workspace's key goes: a workspace's tags and rules are deleted with it, and their rows through these two keys.
CREATE UNIQUE INDEX "tag_rules_id_tag_idx" ON "tag_rules" USING btree ("id","tag_id");--> statement-breakpoint
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_workspace_id_workspaces_id_fk";--> statement-breakpoint
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_tag_id_tags_id_fk";--> statement-breakpoint
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_rule_id_tag_rules_id_fk";--> statement-breakpoint
DROP INDEX "post_tags_manual_idx";--> statement-breakpoint
ALTER TABLE "post_tags" ADD COLUMN "manual_tag_id" uuid GENERATED ALWAYS AS (CASE WHEN rule_id IS NULL THEN tag_id END) STORED;--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_manual_tag_fk" FOREIGN KEY ("manual_tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_tags" ADD CONSTRAINT "post_tags_rule_tag_fk" FOREIGN KEY ("rule_id","tag_id") REFERENCES "public"."tag_rules"("id","tag_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The manual rows' unique index, on the column their key is on (a tag's deletion finds its rows by it).
CREATE UNIQUE INDEX "post_tags_manual_idx" ON "post_tags" USING btree ("manual_tag_id","post_id") WHERE "post_tags"."manual_tag_id" IS NOT NULL;