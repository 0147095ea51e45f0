-- A rule's row is checked once a statement, not once a row (issue 55, item 4; docs/tags.md): a rule's past matches
-- are written 50,000 rows a statement, where the key's look-up a row was 0.46 of 1.25 s. The rows a statement writes
-- are checked against their rules in one join (post_tags_rules_check), after the rules they name are locked as the
-- key would lock them (FOR KEY SHARE: a rule cannot be deleted under a write of its rows); a rule's deletion deletes
-- its rows in one statement (tag_rules_rows_delete), and its id and tag stay as they are (tag_rules_key_kept).
-- The error of a row whose rule is not there, or names another tag, is the key's: 23503 on post_tags_rule_tag_fk.
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_rule_tag_fk";--> statement-breakpoint
CREATE FUNCTION "post_tags_rules_check"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM tag_rules r WHERE r.id IN (SELECT DISTINCT n.rule_id FROM new_rows n WHERE n.rule_id IS NOT NULL)
    ORDER BY r.id FOR KEY SHARE;
  IF EXISTS (
    SELECT FROM new_rows n
    WHERE n.rule_id IS NOT NULL
      AND NOT EXISTS (SELECT FROM tag_rules r WHERE r.id = n.rule_id AND r.tag_id = n.tag_id)
  ) THEN
    RAISE EXCEPTION 'insert or update on table "post_tags" violates foreign key constraint "post_tags_rule_tag_fk"'
      USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'post_tags_rule_tag_fk', TABLE = 'post_tags';
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "post_tags_rules_inserted" AFTER INSERT ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_rules_check();--> statement-breakpoint
CREATE TRIGGER "post_tags_rules_updated" AFTER UPDATE ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_rules_check();--> statement-breakpoint
-- A deleted rule's rows go with it (a workspace's, category's or tag's deletion reaches its rules by their keys).
CREATE FUNCTION "tag_rules_rows_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM post_tags p USING old_rows o WHERE p.rule_id = o.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tag_rules_deleted" AFTER DELETE ON "tag_rules" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tag_rules_rows_delete();--> statement-breakpoint
-- A rule's id and tag are what its rows were checked against: they never change (the key refused it too).
CREATE FUNCTION "tag_rules_key_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.tag_id <> OLD.tag_id THEN
    RAISE EXCEPTION 'a tag rule''s id and tag do not change' USING ERRCODE = 'foreign_key_violation',
      CONSTRAINT = 'post_tags_rule_tag_fk', TABLE = 'tag_rules';
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "tag_rules_key_updated" BEFORE UPDATE OF "id", "tag_id" ON "tag_rules"
  FOR EACH ROW EXECUTE FUNCTION tag_rules_key_kept();
