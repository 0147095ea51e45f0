// Stores a batch of rows in one transaction: profiles then posts, each keyed by (platform, external_id). A field a
// row leaves out keeps the stored value (or the column default for a new row); a field it gives replaces it — so a
// re-import updates counts and changes nothing else.
import type pg from 'pg';
import { applyChanges, beginChanges } from '../changes';
import type { ImportRow } from './normalise';

export interface BatchResult {
  inserted: number;
  /** Posts that existed and changed. */
  updated: number;
  /** Posts that existed and are identical to their row (another import of the same file). */
  unchanged: number;
}

/** The last row per key wins (ON CONFLICT cannot touch one row twice in a statement). */
function lastByKey<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const map = new Map<string, T>();
  for (const row of rows) {
    const k = key(row);
    map.delete(k);
    map.set(k, row);
  }
  return [...map.values()];
}

const PROFILE_RECORD = `r(platform platform, external_id text, handle text, display_name text, followers int,
  following int, verified boolean, bio text, country text, language text, avatar_url text)`;

// Profiles are updated in place (the change path only needs their followers before and after: the engagement rates of
// their posts follow), then the new ones inserted.
const UPSERT_PROFILES = `
WITH r AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${PROFILE_RECORD}),
updated AS (
  UPDATE profiles p SET handle = r.handle,
    display_name = coalesce(r.display_name, p.display_name), followers = coalesce(r.followers, p.followers),
    following = coalesce(r.following, p.following), verified = coalesce(r.verified, p.verified),
    bio = coalesce(r.bio, p.bio), country = coalesce(r.country, p.country),
    language = coalesce(r.language, p.language), avatar_url = coalesce(r.avatar_url, p.avatar_url)
  FROM r WHERE p.platform = r.platform AND p.external_id = r.external_id
    AND (p.handle, p.display_name, p.followers, p.following, p.verified, p.bio, p.country, p.language, p.avatar_url)
      IS DISTINCT FROM (r.handle, coalesce(r.display_name, p.display_name), coalesce(r.followers, p.followers),
         coalesce(r.following, p.following), coalesce(r.verified, p.verified), coalesce(r.bio, p.bio),
         coalesce(r.country, p.country), coalesce(r.language, p.language), coalesce(r.avatar_url, p.avatar_url))
  RETURNING p.id, old.followers AS before, new.followers AS after),
inserted AS (
  INSERT INTO profiles (platform, external_id, handle, display_name, followers, following, verified, bio, country,
    language, avatar_url)
  SELECT platform, external_id, handle, coalesce(display_name, handle), coalesce(followers, 0), coalesce(following, 0),
    coalesce(verified, false), coalesce(bio, ''), country, language, avatar_url FROM r
  ON CONFLICT (platform, external_id) DO NOTHING
  RETURNING id)
SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(before), '{}') AS before,
  coalesce(array_agg(after), '{}') AS after, (SELECT coalesce(array_agg(id), '{}') FROM inserted) AS inserted
FROM updated`;

const POST_RECORD = `r(platform platform, external_id text, author_external_id text, text text, language text,
  posted_at timestamptz, kind post_kind, media media_type, likes int, comments int, shares int, views bigint,
  url text, hashtags text[], mentions text[], domains text[], sentiment real, sentiment_label sentiment_label,
  sentiment_model text, sentiment_rated boolean)`;

// A batch's posts become the change path's two tables: the stored rows that would change (found by their external
// key) as corpus_removed, and every new or changed row as corpus_added (a changed post keeps its id). A field a row
// leaves out keeps the stored value. Rows identical to what is stored are in neither: re-imports are cheap.
const STAGE_POSTS = `
WITH r AS (
  SELECT r.*, a.id AS author_id FROM jsonb_to_recordset($1::jsonb) AS ${POST_RECORD}
  JOIN profiles a ON a.platform = r.platform AND a.external_id = r.author_external_id),
m AS (
  SELECT k.id, r.platform, r.external_id, r.author_id, r.text,
    CASE WHEN p.id IS NULL THEN r.language ELSE coalesce(r.language, p.language) END AS language,
    r.posted_at, coalesce(r.kind, p.kind, 'original') AS kind, coalesce(r.media, p.media, 'text') AS media,
    coalesce(r.likes, p.likes, 0) AS likes, coalesce(r.comments, p.comments, 0) AS comments,
    coalesce(r.shares, p.shares, 0) AS shares, coalesce(r.views, p.views) AS views, coalesce(r.url, p.url) AS url,
    r.hashtags, r.mentions, r.domains, r.sentiment, r.sentiment_label, r.sentiment_model, r.sentiment_rated,
    p.id IS NOT NULL AS stored,
    k.posted_at AS stored_at,
    p.id IS NOT NULL AND (p.author_id, p.text, p.language, p.posted_at, p.kind, p.media, p.likes, p.comments,
      p.shares, p.views, p.url, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label, p.sentiment_model,
      p.sentiment_rated) IS DISTINCT FROM (r.author_id, r.text, coalesce(r.language, p.language), r.posted_at, coalesce(r.kind, p.kind),
        coalesce(r.media, p.media), coalesce(r.likes, p.likes), coalesce(r.comments, p.comments),
        coalesce(r.shares, p.shares), coalesce(r.views, p.views), coalesce(r.url, p.url), r.hashtags, r.mentions,
        r.domains, r.sentiment, r.sentiment_label, r.sentiment_model, r.sentiment_rated) AS changed
  FROM r LEFT JOIN post_keys k ON k.platform = r.platform AND k.external_id = r.external_id
  LEFT JOIN posts p ON p.id = k.id AND p.posted_at = k.posted_at),
removed AS (
  INSERT INTO corpus_removed
  SELECT p.id, p.platform, p.external_id, p.author_id, p.language, p.posted_at, p.kind, p.media, p.likes, p.comments,
    p.shares, p.views, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label, p.engagement
  FROM m JOIN posts p ON p.id = m.id AND p.posted_at = m.stored_at
  WHERE m.changed)
INSERT INTO corpus_added (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes,
  comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model,
  sentiment_rated)
SELECT coalesce(id, nextval('posts_id_seq')), platform, external_id, author_id, text, language, posted_at, kind,
  media, likes, comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model,
  sentiment_rated
FROM m WHERE NOT stored OR changed`;

function profileRecord(row: ImportRow) {
  const a = row.author;
  return {
    platform: row.platform,
    external_id: a.externalId,
    handle: a.handle,
    display_name: a.displayName,
    followers: a.followers,
    following: a.following,
    verified: a.verified,
    bio: a.bio,
    country: a.country,
    language: a.language,
    avatar_url: a.avatarUrl,
  };
}

function postRecord(row: ImportRow) {
  return {
    platform: row.platform,
    external_id: row.externalId,
    author_external_id: row.author.externalId,
    text: row.text,
    language: row.language,
    posted_at: row.postedAt,
    kind: row.kind,
    media: row.media,
    likes: row.likes,
    comments: row.comments,
    shares: row.shares,
    views: row.views,
    url: row.url,
    hashtags: row.hashtags,
    mentions: row.mentions,
    domains: row.domains,
    sentiment: row.sentiment,
    sentiment_label: row.sentimentLabel,
    sentiment_model: row.sentimentModel,
    sentiment_rated: row.sentimentRated,
  };
}

/**
 * Upserts rows inside the caller's open transaction (collection jobs commit a page's posts with the job's cursor):
 * takes the corpus lock, then profiles, then posts, through the corpus's change path (../changes.ts).
 */
export async function upsertRows(client: pg.PoolClient, rows: readonly ImportRow[]): Promise<BatchResult> {
  const profiles = lastByKey(rows, (r) => `${r.platform}\u0000${r.author.externalId}`).map(profileRecord);
  const posts = lastByKey(rows, (r) => `${r.platform}\u0000${r.externalId}`).map(postRecord);
  // Imports, collection jobs and the generator take turns on the corpus (an upsert racing another could lose a row).
  await beginChanges(client);
  const { rows: changed } = await client.query<{
    ids: string[];
    before: number[];
    after: number[];
    inserted: string[];
  }>(UPSERT_PROFILES, [JSON.stringify(profiles)]);
  const { ids, before, after, inserted: profilesInserted } = changed[0]!;
  if (ids.length > 0) {
    await client.query('SELECT corpus_followers_changed($1::bigint[], $2::int[], $3::int[])', [
      ids,
      before,
      after,
    ]);
  }
  if (profilesInserted.length > 0) {
    await client.query('SELECT corpus_profiles_added($1::bigint[])', [profilesInserted]);
  }
  await client.query(STAGE_POSTS, [JSON.stringify(posts)]);
  const { added, removed } = await applyChanges(client);
  return { inserted: added - removed, updated: removed, unchanged: posts.length - added };
}

/** Upserts a batch in one transaction; a failure rolls the whole batch back (the caller may retry it in parts). */
export async function writeBatch(client: pg.PoolClient, rows: readonly ImportRow[]): Promise<BatchResult> {
  await client.query('BEGIN');
  try {
    // An import can be run again: losing the last commits in an OS crash costs little, a flush per batch much.
    await client.query('SET LOCAL synchronous_commit = off');
    const result = await upsertRows(client, rows);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
