-- A tag rule's rows carry no person and no manual tag, yet the two keys on those columns (post_tags_user_id_users_id_fk
-- and post_tags_manual_tag_fk) queued a check for every row PostgreSQL then found null: 75 of 550 ms of a 50,000-row
-- batch on the 1M corpus (issue 55, item 4; docs/tags.md). Both are now checked once a statement, as the rules are
-- since migration 0050: the tags and people a statement's rows name are locked as a key locks them (FOR KEY SHARE, in
-- id order: a tag or person cannot be deleted under a write naming it), then looked up once each; the errors are the
-- keys' (23503, their names). What the keys did on the other side is done by triggers: a deleted tag deletes its
-- manual rows (a workspace's or category's deletion reaches its tags by their keys), a deleted person leaves the rows
-- they set without a name, and a tag's id never changes. A person's rows are found by an index of the manual rows
-- (rule rows have no person), where the key's action read the whole table.
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_manual_tag_fk";--> statement-breakpoint
ALTER TABLE "post_tags" DROP CONSTRAINT "post_tags_user_id_users_id_fk";--> statement-breakpoint
CREATE INDEX "post_tags_user_idx" ON "post_tags" USING btree ("user_id")
  WHERE "post_tags"."user_id" IS NOT NULL;--> statement-breakpoint
DROP TRIGGER "post_tags_rules_inserted" ON "post_tags";--> statement-breakpoint
DROP TRIGGER "post_tags_rules_updated" ON "post_tags";--> statement-breakpoint
DROP FUNCTION "post_tags_rules_check"();--> statement-breakpoint
-- A statement's rows against their rules (distinct (rule, tag) pairs, migration 0053), their manual rows' tags and
-- the people named, each set read from the statement's rows once.
CREATE FUNCTION "post_tags_check"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rules uuid[];
  rule_tags uuid[];
  manual_tags uuid[];
  people uuid[];
BEGIN
  SELECT array_agg(p.rule_id ORDER BY p.rule_id), array_agg(p.tag_id ORDER BY p.rule_id) INTO rules, rule_tags
    FROM (SELECT DISTINCT n.rule_id, n.tag_id FROM new_rows n WHERE n.rule_id IS NOT NULL) p;
  IF rules IS NOT NULL THEN
    PERFORM FROM tag_rules r WHERE r.id = ANY(rules) ORDER BY r.id FOR KEY SHARE;
    IF EXISTS (
      SELECT FROM unnest(rules, rule_tags) p(rule_id, tag_id)
      WHERE NOT EXISTS (SELECT FROM tag_rules r WHERE r.id = p.rule_id AND r.tag_id = p.tag_id)
    ) THEN
      RAISE EXCEPTION 'insert or update on table "post_tags" violates foreign key constraint "post_tags_rule_tag_fk"'
        USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'post_tags_rule_tag_fk', TABLE = 'post_tags';
    END IF;
  END IF;
  SELECT array_agg(DISTINCT n.manual_tag_id) INTO manual_tags FROM new_rows n WHERE n.manual_tag_id IS NOT NULL;
  IF manual_tags IS NOT NULL THEN
    PERFORM FROM tags t WHERE t.id = ANY(manual_tags) ORDER BY t.id FOR KEY SHARE;
    IF EXISTS (SELECT FROM unnest(manual_tags) m(id) WHERE NOT EXISTS (SELECT FROM tags t WHERE t.id = m.id)) THEN
      RAISE EXCEPTION 'insert or update on table "post_tags" violates foreign key constraint "post_tags_manual_tag_fk"'
        USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'post_tags_manual_tag_fk', TABLE = 'post_tags';
    END IF;
  END IF;
  SELECT array_agg(DISTINCT n.user_id) INTO people FROM new_rows n WHERE n.user_id IS NOT NULL;
  IF people IS NOT NULL THEN
    PERFORM FROM users u WHERE u.id = ANY(people) ORDER BY u.id FOR KEY SHARE;
    IF EXISTS (SELECT FROM unnest(people) m(id) WHERE NOT EXISTS (SELECT FROM users u WHERE u.id = m.id)) THEN
      RAISE EXCEPTION
        'insert or update on table "post_tags" violates foreign key constraint "post_tags_user_id_users_id_fk"'
        USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'post_tags_user_id_users_id_fk', TABLE = 'post_tags';
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "post_tags_checked_inserted" AFTER INSERT ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_check();--> statement-breakpoint
CREATE TRIGGER "post_tags_checked_updated" AFTER UPDATE ON "post_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_tags_check();--> statement-breakpoint
-- A deleted tag's manual rows go with it (its rules' rows go with its rules: tag_rules_rows_delete).
CREATE FUNCTION "tags_manual_rows_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM post_tags p USING old_rows o WHERE p.manual_tag_id = o.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tags_deleted" AFTER DELETE ON "tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION tags_manual_rows_delete();--> statement-breakpoint
-- A tag's or person's id is what the rows naming it were checked against: it never changes (the keys refused it too).
CREATE FUNCTION "post_tags_key_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id THEN
    RAISE EXCEPTION 'the id of a row of % does not change', TG_TABLE_NAME USING ERRCODE = 'foreign_key_violation',
      CONSTRAINT = CASE TG_TABLE_NAME WHEN 'tags' THEN 'post_tags_manual_tag_fk'
        ELSE 'post_tags_user_id_users_id_fk' END,
      TABLE = TG_TABLE_NAME;
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "tags_key_updated" BEFORE UPDATE OF "id" ON "tags"
  FOR EACH ROW EXECUTE FUNCTION post_tags_key_kept();--> statement-breakpoint
CREATE TRIGGER "users_key_updated" BEFORE UPDATE OF "id" ON "users"
  FOR EACH ROW EXECUTE FUNCTION post_tags_key_kept();--> statement-breakpoint
-- A deleted person's tag rows stay, naming no one (the key's ON DELETE SET NULL).
CREATE FUNCTION "users_tag_rows_unname"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE post_tags p SET user_id = NULL FROM old_rows o WHERE p.user_id = o.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "users_deleted_tag_rows" AFTER DELETE ON "users" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION users_tag_rows_unname();
