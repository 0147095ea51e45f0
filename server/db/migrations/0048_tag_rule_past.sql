-- How a tag rule's past matches were found (issue 55, item 4; docs/tags.md): 'store' when they were read from the
-- analytics store at once, 'matcher' when the store could not answer and the posts were matched one by one (past_note
-- says why); null until the rule's first pass has begun (rules of before this migration).
ALTER TABLE "tag_rules" ADD COLUMN "past_from" text;--> statement-breakpoint
ALTER TABLE "tag_rules" ADD COLUMN "past_note" text;
