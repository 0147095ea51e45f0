-- users/me's version per user (issue 17 item 10): users/me keeps its answer for each user in memory with the version
-- it was read at, and on each request reads only this one column by primary key; the whole answer (the user, their
-- memberships and workspaces) is read again only when the version moved. Triggers raise it, so no writer can forget
-- to: whoever changes the user's row, one of their memberships, or a workspace they belong to (an API route, the
-- billing job, a script, a hand-written UPDATE). The raise is part of the writer's transaction, so a reader sees the
-- new version exactly when it can see the new rows.
ALTER TABLE "users" ADD COLUMN "profile_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The user's own fields that users/me answers. A raise by the two triggers below changes none of them, so it is not
-- counted twice.
CREATE FUNCTION "users_profile_version_raise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.profile_version := OLD.profile_version + 1;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "users_profile_version" BEFORE UPDATE ON "users" FOR EACH ROW
  WHEN ((OLD.email, OLD.first_name, OLD.last_name, OLD.is_staff)
    IS DISTINCT FROM (NEW.email, NEW.first_name, NEW.last_name, NEW.is_staff))
  EXECUTE FUNCTION users_profile_version_raise();--> statement-breakpoint
-- A membership added, changed (its privilege) or removed, also when a workspace's deletion cascades to it. Per row:
-- memberships change a few rows at a time.
CREATE FUNCTION "memberships_profile_version_raise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET profile_version = profile_version + 1
   WHERE id = NEW.user_id OR id = OLD.user_id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "memberships_profile_version" AFTER INSERT OR UPDATE OR DELETE ON "memberships" FOR EACH ROW
  EXECUTE FUNCTION memberships_profile_version_raise();--> statement-breakpoint
-- A workspace's fields that users/me answers, for every member of it.
CREATE FUNCTION "workspaces_profile_version_raise"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE users SET profile_version = profile_version + 1
   WHERE id IN (SELECT user_id FROM memberships WHERE workspace_id = NEW.id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "workspaces_profile_version" AFTER UPDATE ON "workspaces" FOR EACH ROW
  WHEN ((OLD.name, OLD.language, OLD.plan, OLD.plan_expired_at, OLD.is_internal, OLD.time_zone)
    IS DISTINCT FROM (NEW.name, NEW.language, NEW.plan, NEW.plan_expired_at, NEW.is_internal, NEW.time_zone))
  EXECUTE FUNCTION workspaces_profile_version_raise();
