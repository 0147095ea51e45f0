CREATE TABLE "post_days" (
	"posted_at" timestamp with time zone NOT NULL,
	"platform" "platform" NOT NULL,
	"language" text,
	"kind" "post_kind" NOT NULL,
	"media" "media_type" NOT NULL,
	"posts" integer NOT NULL,
	"likes" bigint NOT NULL,
	"comments" bigint NOT NULL,
	"shares" bigint NOT NULL,
	"views" bigint NOT NULL,
	"engagement" bigint NOT NULL,
	"sentiment" double precision NOT NULL,
	"rate" double precision NOT NULL,
	"rated" integer NOT NULL,
	CONSTRAINT "post_days_key" UNIQUE NULLS NOT DISTINCT("posted_at","platform","language","kind","media")
);
--> statement-breakpoint
CREATE TABLE "post_hours" (
	"posted_at" timestamp with time zone NOT NULL,
	"platform" "platform" NOT NULL,
	"language" text,
	"posts" integer NOT NULL,
	"engagement" bigint NOT NULL,
	"positive" integer NOT NULL,
	"neutral" integer NOT NULL,
	"negative" integer NOT NULL,
	"sentiment" double precision NOT NULL,
	CONSTRAINT "post_hours_key" UNIQUE NULLS NOT DISTINCT("posted_at","platform","language")
);
--> statement-breakpoint
CREATE TABLE "post_tag_days" (
	"posted_at" timestamp with time zone NOT NULL,
	"type" text NOT NULL,
	"tag" text NOT NULL,
	"platform" "platform" NOT NULL,
	"language" text,
	"posts" integer NOT NULL,
	CONSTRAINT "post_tag_days_key" UNIQUE NULLS NOT DISTINCT("posted_at","type","tag","platform","language")
);
--> statement-breakpoint
-- Rollups of posts (server/social/insights/README.md, "Rollups"). post_rollups_sql(source, sign) gives the statements
-- that add (sign 1) or take away (sign -1) the posts of `source` — posts itself, or a trigger's transition table —
-- to every rollup, then (cleanup) the statements that delete the rows left without posts; the backfill below and the
-- triggers share this one definition. Engagement rates divide by the
-- author's followers as the profile has them now: a change of followers moves the author's posts' rates.
CREATE FUNCTION "post_rollups_sql"(source text, sign integer) RETURNS TABLE (cleanup boolean, statement text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  BEGIN ATOMIC
    SELECT false, format($q$
      INSERT INTO post_hours AS r (posted_at, platform, language, posts, engagement, positive, neutral, negative,
        sentiment)
      SELECT date_trunc('hour', t.posted_at, 'UTC'), t.platform, t.language, %2$s * count(*), %2$s * sum(t.engagement),
        %2$s * count(*) FILTER (WHERE t.sentiment_label = 'positive'),
        %2$s * count(*) FILTER (WHERE t.sentiment_label = 'neutral'),
        %2$s * count(*) FILTER (WHERE t.sentiment_label = 'negative'), %2$s * sum(t.sentiment::float8)
      FROM %1$I t GROUP BY 1, 2, 3
      ON CONFLICT ON CONSTRAINT post_hours_key DO UPDATE SET posts = r.posts + excluded.posts,
        engagement = r.engagement + excluded.engagement, positive = r.positive + excluded.positive,
        neutral = r.neutral + excluded.neutral, negative = r.negative + excluded.negative,
        sentiment = r.sentiment + excluded.sentiment$q$, source, sign)
    UNION ALL
    SELECT false, format($q$
      INSERT INTO post_days AS r (posted_at, platform, language, kind, media, posts, likes, comments, shares, views,
        engagement, sentiment, rate, rated)
      SELECT date_trunc('day', t.posted_at, 'UTC'), t.platform, t.language, t.kind, t.media, %2$s * count(*),
        %2$s * sum(t.likes), %2$s * sum(t.comments), %2$s * sum(t.shares), %2$s * coalesce(sum(t.views), 0),
        %2$s * sum(t.engagement), %2$s * sum(t.sentiment::float8),
        %2$s * coalesce(sum(t.engagement::float8 / a.followers) FILTER (WHERE a.followers > 0), 0),
        %2$s * count(*) FILTER (WHERE a.followers > 0)
      FROM %1$I t LEFT JOIN profiles a ON a.id = t.author_id GROUP BY 1, 2, 3, 4, 5
      ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET posts = r.posts + excluded.posts,
        likes = r.likes + excluded.likes, comments = r.comments + excluded.comments,
        shares = r.shares + excluded.shares, views = r.views + excluded.views,
        engagement = r.engagement + excluded.engagement, sentiment = r.sentiment + excluded.sentiment,
        rate = r.rate + excluded.rate, rated = r.rated + excluded.rated$q$, source, sign)
    UNION ALL
    -- An element repeated in a post counts once (UNION, not UNION ALL).
    SELECT false, format($q$
      INSERT INTO post_tag_days AS r (posted_at, type, tag, platform, language, posts)
      SELECT date_trunc('day', t.posted_at, 'UTC'), e.type, e.tag, t.platform, t.language, %2$s * count(*)
      FROM %1$I t CROSS JOIN LATERAL (SELECT 'hashtag', x FROM unnest(t.hashtags) x
        UNION SELECT 'mention', x FROM unnest(t.mentions) x UNION SELECT 'domain', x FROM unnest(t.domains) x) e(type, tag)
      GROUP BY 1, 2, 3, 4, 5
      ON CONFLICT ON CONSTRAINT post_tag_days_key DO UPDATE SET posts = r.posts + excluded.posts$q$, source, sign)
    UNION ALL
    -- Rows whose posts all went are deleted; only the keys the source touched are looked at.
    SELECT true, format($q$
      DELETE FROM post_hours r USING (SELECT DISTINCT date_trunc('hour', posted_at, 'UTC') AS hour FROM %1$I) k
      WHERE r.posted_at = k.hour AND r.posts = 0$q$, source) WHERE sign < 0
    UNION ALL
    SELECT true, format($q$
      DELETE FROM post_days r USING (SELECT DISTINCT date_trunc('day', posted_at, 'UTC') AS day FROM %1$I) k
      WHERE r.posted_at = k.day AND r.posts = 0$q$, source) WHERE sign < 0
    UNION ALL
    SELECT true, format($q$
      DELETE FROM post_tag_days r USING (SELECT DISTINCT date_trunc('day', t.posted_at, 'UTC') AS day, e.type, e.tag
        FROM %1$I t CROSS JOIN LATERAL (SELECT 'hashtag', x FROM unnest(t.hashtags) x
          UNION ALL SELECT 'mention', x FROM unnest(t.mentions) x UNION ALL SELECT 'domain', x FROM unnest(t.domains) x)
          e(type, tag)) k
      WHERE r.posted_at = k.day AND r.type = k.type AND r.tag = k.tag AND r.posts = 0$q$, source) WHERE sign < 0;
  END;--> statement-breakpoint
CREATE FUNCTION "post_rollups_trigger"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  statement text;
BEGIN
  -- An update takes the old rows away before it adds the new ones; the empty rows are deleted after both.
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('old_rows', -1) s WHERE NOT s.cleanup LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('new_rows', 1) s LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    FOR statement IN SELECT s.statement FROM post_rollups_sql('old_rows', -1) s WHERE s.cleanup LOOP
      EXECUTE statement;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- A trigger with transition tables serves one event.
CREATE TRIGGER "posts_rollups_insert" AFTER INSERT ON "posts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_rollups_trigger();--> statement-breakpoint
CREATE TRIGGER "posts_rollups_update" AFTER UPDATE ON "posts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_rollups_trigger();--> statement-breakpoint
CREATE TRIGGER "posts_rollups_delete" AFTER DELETE ON "posts" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION post_rollups_trigger();--> statement-breakpoint
CREATE FUNCTION "post_rollups_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE post_hours, post_days, post_tag_days;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "posts_rollups_truncate" AFTER TRUNCATE ON "posts"
  FOR EACH STATEMENT EXECUTE FUNCTION post_rollups_truncate();--> statement-breakpoint
-- A change of followers moves the rates of the author's posts from the old count to the new one.
CREATE FUNCTION "post_rollups_followers"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO post_days AS r (posted_at, platform, language, kind, media, posts, likes, comments, shares, views,
    engagement, sentiment, rate, rated)
  SELECT date_trunc('day', p.posted_at, 'UTC'), p.platform, p.language, p.kind, p.media, 0, 0, 0, 0, 0, 0, 0,
    coalesce(sum(p.engagement::float8 / n.followers) FILTER (WHERE n.followers > 0), 0)
      - coalesce(sum(p.engagement::float8 / o.followers) FILTER (WHERE o.followers > 0), 0),
    count(*) FILTER (WHERE n.followers > 0) - count(*) FILTER (WHERE o.followers > 0)
  FROM old_rows o JOIN new_rows n ON n.id = o.id AND n.followers IS DISTINCT FROM o.followers
  JOIN posts p ON p.author_id = n.id
  GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT ON CONSTRAINT post_days_key DO UPDATE SET rate = r.rate + excluded.rate, rated = r.rated + excluded.rated;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "profiles_rollups_followers" AFTER UPDATE ON "profiles" REFERENCING OLD TABLE AS old_rows
  NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_rollups_followers();--> statement-breakpoint
-- A profile's posts go before the profile (instead of by the cascade), while their rates can still be taken away.
CREATE FUNCTION "post_rollups_profile_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM posts WHERE author_id = OLD.id;
  RETURN OLD;
END $$;--> statement-breakpoint
CREATE TRIGGER "profiles_rollups_delete" BEFORE DELETE ON "profiles"
  FOR EACH ROW EXECUTE FUNCTION post_rollups_profile_deleted();--> statement-breakpoint
DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN SELECT s.statement FROM post_rollups_sql('posts', 1) s LOOP
    EXECUTE statement;
  END LOOP;
END $$;
