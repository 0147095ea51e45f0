-- A rule's past matches (server/social/insights/rule-past.ts) as one row per rule and range of 4,096 post ids, the
-- posts it matches in the range a bitmap: bit o (0 the leftmost) is post `start + o`. At 10M posts a rule's 1.33
-- million matches were 1.33 million rows of post_tags, a heap row and an index entry each, 6-9 s to write with two
-- writers; as ranges they are 2,442 rows. post_tags keeps the manual rows and the live path's rule rows (new posts,
-- a few at a time, server/tags/apply.ts); every reader of a post's rule rows reads both (server/tags/carried.ts).
CREATE TABLE "rule_post_ranges" (
  "rule_id" uuid NOT NULL,
  "start" bigint NOT NULL,
  "bits" bit(4096) NOT NULL,
  CONSTRAINT "rule_post_ranges_pkey" PRIMARY KEY ("rule_id", "start"),
  CONSTRAINT "rule_post_ranges_rule_id_tag_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "tag_rules" ("id")
    ON DELETE CASCADE,
  CONSTRAINT "rule_post_ranges_start_check" CHECK ("start" >= 0 AND "start" % 4096 = 0)
);--> statement-breakpoint
CREATE INDEX "rule_post_ranges_start_idx" ON "rule_post_ranges" USING btree ("start");--> statement-breakpoint

-- The posts a range's bits name: by words of 128 bits, a word without a bit set skipped whole, so a rule of few
-- matches spread over every range costs its words, not 4,096 bits a range. Expanding 2,442 ranges (10M posts) took
-- 0.18 s with 0.1 % of their bits set (1.0-1.2 s bit by bit), and 0.97-0.99 s with 13 % set (0.77 s bit by bit).
CREATE FUNCTION "rule_range_posts"(start bigint, bits bit) RETURNS SETOF bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT start + w.o + b.o
  FROM generate_series(0, length(bits) - 1, 128) w(o)
  CROSS JOIN LATERAL generate_series(0, least(128, length(bits) - w.o) - 1) b(o)
  WHERE position(B'1' IN substring(bits FROM w.o + 1 FOR 128)) > 0 AND get_bit(bits, w.o + b.o) = 1
$$;
--> statement-breakpoint

-- A range's rows name their posts to the analytics store's feed (corpus_tags_changed), as post_tags's do: every post
-- of a range inserted or deleted, and of a range updated the posts whose bit changed (the two bitmaps' XOR).
CREATE FUNCTION "rule_post_ranges_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM corpus_tags_changed(ARRAY(SELECT rule_range_posts(n.start, n.bits) FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM corpus_tags_changed(ARRAY(SELECT rule_range_posts(o.start, o.bits) FROM old_rows o));
  ELSE
    PERFORM corpus_tags_changed(ARRAY(SELECT rule_range_posts(n.start, n.bits # o.bits)
      FROM new_rows n JOIN old_rows o ON o.rule_id = n.rule_id AND o.start = n.start));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "rule_post_ranges_inserted" AFTER INSERT ON "rule_post_ranges" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rule_post_ranges_changed();--> statement-breakpoint
CREATE TRIGGER "rule_post_ranges_deleted" AFTER DELETE ON "rule_post_ranges" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rule_post_ranges_changed();--> statement-breakpoint
CREATE TRIGGER "rule_post_ranges_updated" AFTER UPDATE ON "rule_post_ranges"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION rule_post_ranges_changed();--> statement-breakpoint

-- Removed posts lose their bits (a range left with none is deleted): the posts grouped by range, each range's mask
-- built once, so a dropped month of a million posts costs a pass over its posts and one over the ranges it reaches.
CREATE FUNCTION "rule_post_ranges_forget"(gone bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(gone) = 0 THEN
    RETURN;
  END IF;
  WITH masks AS (
    SELECT g - g % 4096 AS start, bit_or(set_bit(B'0'::bit(4096), (g % 4096)::int, 1)) AS mask
    FROM unnest(gone) g GROUP BY 1)
  UPDATE rule_post_ranges r SET bits = r.bits & ~m.mask
    FROM masks m WHERE r.start = m.start AND (r.bits & m.mask) <> B'0'::bit(4096);
  DELETE FROM rule_post_ranges WHERE start = ANY (ARRAY(SELECT DISTINCT g - g % 4096 FROM unnest(gone) g))
    AND bits = B'0'::bit(4096);
END $$;--> statement-breakpoint

-- The rule rows of the posts `ids` that ranges hold, as rows of post_tags (the same columns, in its order): of the
-- rules `rules`, or of every rule when null. The posts are grouped by range first, so a range is found once by its
-- start however many of its posts are asked for (at 10M posts, the feed's 200,000 posts a round under 20 rules).
CREATE FUNCTION "rule_post_range_rows"(ids bigint[], rules uuid[] DEFAULT NULL)
  RETURNS TABLE (workspace_id text, post_id bigint, tag_id uuid, set_by text, rule_id uuid, manual_tag_id uuid,
    removed boolean, user_id uuid, set_at timestamptz)
  LANGUAGE sql STABLE AS $$
  SELECT t.workspace_id, s.start + o.off, t.tag_id, 'rule', r.rule_id, NULL::uuid, false, NULL::uuid, t.updated_at
  FROM (SELECT p - p % 4096 AS start, array_agg(DISTINCT (p % 4096)::int) AS offs FROM unnest(ids) p GROUP BY 1) s
  JOIN rule_post_ranges r ON r.start = s.start
  JOIN tag_rules t ON t.id = r.rule_id
  CROSS JOIN LATERAL unnest(s.offs) o(off)
  WHERE (rules IS NULL OR r.rule_id = ANY (rules)) AND get_bit(r.bits, o.off) = 1
$$;--> statement-breakpoint

-- Every rule row, as rows of post_tags: post_tags's and the ranges' posts (the store's rebuild and corpus:check).
CREATE VIEW "post_tag_rows" AS
  SELECT workspace_id, post_id, tag_id, set_by, rule_id, manual_tag_id, removed, user_id, set_at FROM post_tags
  UNION ALL
  SELECT t.workspace_id, p.post, t.tag_id, 'rule', r.rule_id, NULL::uuid, false, NULL::uuid, t.updated_at
  FROM rule_post_ranges r JOIN tag_rules t ON t.id = r.rule_id
  CROSS JOIN LATERAL rule_range_posts(r.start, r.bits) p(post);--> statement-breakpoint

-- A removed post's bits go in the transaction that removes it, as its post_tags rows do.
CREATE OR REPLACE FUNCTION "corpus_changes_apply"(write_posts boolean DEFAULT true) RETURNS TABLE (added bigint, removed bigint)
  LANGUAGE plpgsql AS $$
DECLARE
  n_added bigint;
  n_removed bigint;
  gone bigint[];
BEGIN
  PERFORM corpus_changes_begin();
  SELECT count(*) INTO n_added FROM corpus_added;
  SELECT count(*) INTO n_removed FROM corpus_removed;
  IF n_added = 0 AND n_removed = 0 THEN
    RETURN QUERY SELECT 0::bigint, 0::bigint;
    RETURN;
  END IF;
  PERFORM posts_partition_ensure(m) FROM (SELECT DISTINCT date_trunc('month', posted_at, 'UTC') AS m
    FROM corpus_added) x;
  IF write_posts THEN
    -- A changed post is deleted and inserted again with its id: a new posted_at may belong to another month.
    DELETE FROM posts p USING corpus_removed o WHERE p.id = o.id AND p.posted_at = o.posted_at;
    INSERT INTO posts (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments,
      shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model, sentiment_rated) OVERRIDING SYSTEM VALUE
    SELECT id, platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments, shares,
      views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model, sentiment_rated FROM corpus_added;
  END IF;
  -- The external keys: a post gone loses its key, a changed one keeps it (and its month), a new one adds it (a key
  -- already taken is a unique violation, never a second post).
  DELETE FROM post_keys k USING corpus_removed o
    WHERE k.platform = o.platform AND k.external_id = o.external_id AND k.id = o.id
      AND NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id);
  -- A post gone takes its tags (every workspace's, set by hand or by rules) with it; a changed one keeps them. Its
  -- manual rows are found by the posts' index, its rules' by theirs, (rule, post), skipping from rule to rule.
  gone := ARRAY(SELECT o.id FROM corpus_removed o WHERE NOT EXISTS (SELECT FROM corpus_added a WHERE a.id = o.id));
  IF cardinality(gone) > 0 THEN
    DELETE FROM post_tags WHERE rule_id IS NULL AND post_id = ANY (gone);
    DELETE FROM post_tags WHERE rule_id IS NOT NULL AND post_id = ANY (gone);
    PERFORM rule_post_ranges_forget(gone);
  END IF;
  UPDATE post_keys k SET posted_at = a.posted_at, platform = a.platform, external_id = a.external_id
    FROM corpus_removed o JOIN corpus_added a ON a.id = o.id
    WHERE k.platform = o.platform AND k.external_id = o.external_id AND k.id = o.id
      AND (k.posted_at, k.platform, k.external_id) IS DISTINCT FROM (a.posted_at, a.platform, a.external_id);
  INSERT INTO post_keys (platform, external_id, id, posted_at)
    SELECT a.platform, a.external_id, a.id, a.posted_at FROM corpus_added a
    WHERE NOT EXISTS (SELECT FROM corpus_removed o WHERE o.id = a.id);
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append(ARRAY(SELECT id FROM corpus_removed UNION SELECT id FROM corpus_added), '{}');
  TRUNCATE corpus_added, corpus_removed;
  RETURN QUERY SELECT n_added, n_removed;
END $$;--> statement-breakpoint

-- A dropped month's posts lose their bits with their rows.
CREATE OR REPLACE FUNCTION "posts_partitions_drop_before"(cutoff timestamptz) RETURNS SETOF text
  LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM corpus_changes_begin();
  FOR part IN SELECT * FROM posts_partitions() WHERE until <= cutoff LOOP
    DELETE FROM post_tags t USING post_keys k
      WHERE t.post_id = k.id AND k.posted_at >= part.since AND k.posted_at < part.until;
    PERFORM rule_post_ranges_forget(ARRAY(SELECT id FROM post_keys
      WHERE posted_at >= part.since AND posted_at < part.until));
    DELETE FROM post_keys WHERE posted_at >= part.since AND posted_at < part.until;
    PERFORM posts_partition_drop(part.name);
    PERFORM corpus_touch();
    RETURN NEXT part.name;
  END LOOP;
END $$;--> statement-breakpoint

-- Emptying the corpus empties the ranges too (the posts' ids start again at 1).
CREATE OR REPLACE FUNCTION "corpus_truncate"() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM corpus_changes_begin();
  TRUNCATE posts, post_keys, profiles CONTINUE IDENTITY CASCADE;
  TRUNCATE post_tags, rule_post_ranges;
  PERFORM corpus_sequences_restart();
  PERFORM corpus_touch();
  PERFORM analytics_outbox_append('{}', '{}', true);
END $$;
