-- The corpus's version (issue 17 item 9): one row, raised in the transaction of every statement that writes posts or
-- profiles, whoever runs it (the importer, the generator, a collector, a hand-written UPDATE). The dashboards' answer
-- cache keys its answers by it, so an answer computed before a change is never served after it.
CREATE TABLE "corpus_state" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "corpus_state_one_row" CHECK ("corpus_state"."id")
);--> statement-breakpoint
INSERT INTO "corpus_state" ("id", "version") VALUES (true, 0);--> statement-breakpoint
-- Once per statement, not per row: a COPY of a million posts raises it once. The row lock it takes is held until
-- the writer commits, so versions rise in commit order and a reader sees version and posts change together.
CREATE FUNCTION "corpus_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE corpus_state SET version = version + 1, changed_at = now();
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "posts_corpus_version" AFTER INSERT OR UPDATE OR DELETE ON "posts"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_version_bump();--> statement-breakpoint
CREATE TRIGGER "posts_corpus_version_truncate" AFTER TRUNCATE ON "posts"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_version_bump();--> statement-breakpoint
CREATE TRIGGER "profiles_corpus_version" AFTER INSERT OR UPDATE OR DELETE ON "profiles"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_version_bump();--> statement-breakpoint
CREATE TRIGGER "profiles_corpus_version_truncate" AFTER TRUNCATE ON "profiles"
  FOR EACH STATEMENT EXECUTE FUNCTION corpus_version_bump();
