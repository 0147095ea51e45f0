// The analytics store held to PostgreSQL at one corpus version (`npm run corpus:check`, docs/corpus-storage.md): per
// month (UTC) of the posts, their count, the sums of likes, comments, shares, views and engagement, a hash of their ids
// and a hash of their rows (id, author, the five figures, the subreddit); for a month that differs, the posts that
// differ, id by id; and the profiles' followers, a hash first, then id by id; and the tags the posts carry
// (check-tags.ts), per tag, then post by post. PostgreSQL is read in one REPEATABLE READ snapshot, and the store once
// it has applied every outbox batch that snapshot holds, and no later one (the applier is waited for; a store still
// behind is said to be). The outbox position rather than the corpus version: a change that raised the version without a
// batch (the derived tables' repair, server/social/corpus/check.ts) changed no post or profile. The repair feeds the
// differing posts and profiles through the change feed again: an outbox batch naming them, appended on the change path
// as any write appends one, which the applier applies by putting PostgreSQL's current rows of those ids in place of
// whatever the store has of them (server/analytics/applier.ts); the posts whose tags differ, likewise, as a batch of
// tag_post_ids (corpus_tags_changed).
import type pg from 'pg';
import { checkTags, describeTagCheck, differingTagPosts, type TagCheck } from './check-tags';
import { STORE_DATABASE } from './layout';
import { SUBREDDIT_SQL } from './rows';
import type { StoreReading } from './state';

/** What the check reads the store through: the running analytics service (server/analytics/service.ts). */
export interface StoreSide {
  reading(): StoreReading | null;
  unchangedSince(reading: StoreReading): boolean;
  wake?(): void;
}

/** The figures of one month's posts, as one side holds them (sums as decimal text: they may pass 2^53). */
interface MonthFigures {
  posts: string;
  likes: string;
  comments: string;
  shares: string;
  views: string;
  engagement: string;
  /** md5 of the month's ids in ascending order. */
  ids: string;
  /** md5 of the month's rows (id, author, likes, comments, shares, views, engagement) by id. */
  rows: string;
}

const FIGURES = ['posts', 'likes', 'comments', 'shares', 'views', 'engagement'] as const;

interface PostDifference {
  id: number;
  /** The post's row in PostgreSQL and in the store ("author likes comments shares views engagement"), null: none. */
  postgres: string | null;
  store: string | null;
  /** Rows the store holds of it (more than 1: doubled). */
  held: number;
}

interface MonthDifference {
  /** YYYY-MM, UTC. */
  month: string;
  postgres: MonthFigures | null;
  store: MonthFigures | null;
  /** Every post of the month that differs. */
  posts: PostDifference[];
}

interface ProfileDifference {
  id: number;
  /** Followers in PostgreSQL and in the store, null: no such profile there. */
  postgres: string | null;
  store: string | null;
}

export type StoreCheck =
  | {
      state: 'checked';
      corpusVersion: number;
      posts: number;
      profiles: number;
      months: MonthDifference[];
      profileDifferences: ProfileDifference[];
      tags: TagCheck;
    }
  /** The store did not reach PostgreSQL's version in the time given (or cannot answer: null). */
  | { state: 'behind'; postgresVersion: number; storeVersion: number | null }
  /** The corpus changed under every attempt to read both sides at one version. */
  | { state: 'moving'; attempts: number };

export interface CheckOptions {
  /** How long the applier is waited for to bring the store to PostgreSQL's version (60 s by default). */
  waitMs?: number;
  /** Attempts at one version while writers keep changing the corpus (5 by default). */
  attempts?: number;
}

const DB = STORE_DATABASE;

/** A post's row as compared (author, the five figures, the subreddit), in PostgreSQL; STORE_ROW in the store. */
const PG_ROW = `concat_ws(' ', author_id, likes, comments, shares, coalesce(views::text, '-'), engagement,
  ${SUBREDDIT_SQL})`;

const PG_MONTHS = `SELECT to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::text AS posts,
    sum(likes)::text AS likes, sum(comments)::text AS comments, sum(shares)::text AS shares,
    coalesce(sum(views), 0)::text AS views, sum(engagement)::text AS engagement,
    md5(string_agg(id::text, ',' ORDER BY id)) AS ids,
    md5(string_agg(id || ' ' || ${PG_ROW}, ',' ORDER BY id)) AS rows
  FROM posts GROUP BY 1 ORDER BY 1`;

const STORE_MONTH = `formatDateTime(fromUnixTimestamp64Milli(ts, 'UTC'), '%Y-%m')`;
const STORE_ROW = `concat(toString(author_id), ' ', toString(likes), ' ', toString(comments), ' ', toString(shares),
  ' ', ifNull(toString(views), '-'), ' ', toString(engagement), ' ', subreddit)`;

// Over a subquery: an alias named like a column (likes) would stand for the column in the expressions beside it.
const STORE_MONTHS = `SELECT month, toString(count()) AS posts, toString(sum(l)) AS likes, toString(sum(c)) AS comments,
    toString(sum(s)) AS shares, toString(sum(v)) AS views, toString(sum(e)) AS engagement,
    lower(hex(MD5(arrayStringConcat(arrayMap(x -> toString(x), arraySort(groupArray(i))), ',')))) AS ids,
    lower(hex(MD5(arrayStringConcat(arrayMap(x -> concat(toString(x.1), ' ', x.2), arraySort(groupArray((i, r)))),
      ',')))) AS rows
  FROM (SELECT ${STORE_MONTH} AS month, id AS i, likes AS l, comments AS c, shares AS s, ifNull(views, 0) AS v,
      engagement AS e, ${STORE_ROW} AS r FROM ${DB}.posts)
  GROUP BY month ORDER BY month`;

const PG_PROFILES = `SELECT count(*)::text AS n,
    coalesce(md5(string_agg(id || ':' || followers, ',' ORDER BY id)), '') AS hash FROM profiles`;
const STORE_PROFILES = `SELECT toString(count()) AS n,
    if(count() = 0, '', lower(hex(MD5(arrayStringConcat(arrayMap(x -> concat(toString(x.1), ':', toString(x.2)),
      arraySort(groupArray((id, followers)))), ','))))) AS hash FROM ${DB}.profiles`;

type MonthRow = MonthFigures & { month: string };

const sameMonth = (a: MonthFigures | null, b: MonthFigures | null) =>
  a !== null &&
  b !== null &&
  FIGURES.every((figure) => a[figure] === b[figure]) &&
  a.ids === b.ids &&
  a.rows === b.rows;

/** The posts of `month` that differ, id by id: PostgreSQL's rows (in the snapshot) against the store's. */
async function postsOfMonth(
  client: pg.ClientBase,
  reading: StoreReading,
  month: string,
): Promise<PostDifference[]> {
  const since = `${month}-01T00:00:00Z`;
  const { rows: postgres } = await client.query<{ id: string; v: string }>(
    `SELECT id::text, ${PG_ROW} AS v
     FROM posts WHERE posted_at >= $1::timestamptz AND posted_at < $1::timestamptz + interval '1 month'`,
    [since],
  );
  const store = await reading.store.query<{ id: string; v: string; n: string }>(
    `SELECT toString(id) AS id, any(${STORE_ROW}) AS v, toString(count()) AS n FROM ${DB}.posts
     WHERE ${STORE_MONTH} = {month:String} GROUP BY id`,
    { month },
  );
  const held = new Map(store.map((row) => [row.id, row]));
  const differences: PostDifference[] = [];
  for (const row of postgres) {
    const there = held.get(row.id);
    held.delete(row.id);
    if (there?.v === row.v && there.n === '1') continue;
    differences.push({
      id: Number(row.id),
      postgres: row.v,
      store: there?.v ?? null,
      held: Number(there?.n ?? 0),
    });
  }
  for (const row of held.values())
    differences.push({ id: Number(row.id), postgres: null, store: row.v, held: Number(row.n) });
  return differences.sort((a, b) => a.id - b.id);
}

/** The profiles whose followers differ (or that one side lacks or the store holds twice). */
async function profileDifferences(
  client: pg.ClientBase,
  reading: StoreReading,
): Promise<ProfileDifference[]> {
  const { rows: postgres } = await client.query<{ id: string; f: string }>(
    'SELECT id::text, followers::text AS f FROM profiles',
  );
  const store = await reading.store.query<{ id: string; f: string; n: string }>(
    `SELECT toString(id) AS id, toString(any(followers)) AS f, toString(count()) AS n FROM ${DB}.profiles GROUP BY id`,
  );
  const held = new Map(store.map((row) => [row.id, row]));
  const differences: ProfileDifference[] = [];
  for (const row of postgres) {
    const there = held.get(row.id);
    held.delete(row.id);
    if (there?.f === row.f && there.n === '1') continue;
    differences.push({ id: Number(row.id), postgres: row.f, store: there?.f ?? null });
  }
  for (const row of held.values()) differences.push({ id: Number(row.id), postgres: null, store: row.f });
  return differences.sort((a, b) => a.id - b.id);
}

/** Resolves with the store's reading once it has applied outbox batch `seq` or a later one, or null after `ms`. */
async function readingAt(side: StoreSide, seq: number, ms: number): Promise<StoreReading | null> {
  const until = performance.now() + ms;
  for (;;) {
    const reading = side.reading();
    if (reading && reading.appliedSeq >= seq) return reading;
    if (performance.now() >= until) return null;
    side.wake?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Compares the store with PostgreSQL at one corpus version (see the top of this file). */
export async function checkStore(
  pool: pg.Pool,
  side: StoreSide,
  { waitMs = 60_000, attempts = 5 }: CheckOptions = {},
): Promise<StoreCheck> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET LOCAL work_mem = '64MB'`);
      // Seqs are drawn under the corpus lock and so committed in their order: the snapshot holds every batch up to
      // its last (or the consumer's position, when the outbox was trimmed up to it), and none after.
      const { rows } = await client.query<{ version: string; seq: string }>(
        `SELECT s.version::text, greatest((SELECT max(seq) FROM analytics_outbox),
           (SELECT applied_seq FROM analytics_consumer), 0)::text AS seq FROM corpus_state s`,
      );
      const version = Number(rows[0]!.version);
      const seq = Number(rows[0]!.seq);
      const postgresMonths = (await client.query<MonthRow>(PG_MONTHS)).rows;
      const postgresProfiles = (await client.query<{ n: string; hash: string }>(PG_PROFILES)).rows[0]!;
      const reading = await readingAt(side, seq, waitMs);
      if (!reading) {
        const held = side.reading();
        return { state: 'behind', postgresVersion: version, storeVersion: held?.corpusVersion ?? null };
      }
      if (reading.appliedSeq > seq) continue; // the corpus changed since the snapshot: take another
      const storeMonths = await reading.store.query<MonthRow>(STORE_MONTHS);
      const storeProfiles = (await reading.store.query<{ n: string; hash: string }>(STORE_PROFILES))[0]!;
      const byMonth = new Map<string, { postgres: MonthFigures | null; store: MonthFigures | null }>();
      for (const { month, ...figures } of postgresMonths)
        byMonth.set(month, { postgres: figures, store: null });
      for (const { month, ...figures } of storeMonths)
        byMonth.set(month, { postgres: byMonth.get(month)?.postgres ?? null, store: figures });
      const months: MonthDifference[] = [];
      for (const [month, sides] of [...byMonth].sort(([a], [b]) => a.localeCompare(b))) {
        if (sameMonth(sides.postgres, sides.store)) continue;
        months.push({ month, ...sides, posts: await postsOfMonth(client, reading, month) });
      }
      const profiles =
        postgresProfiles.n === storeProfiles.n && postgresProfiles.hash === storeProfiles.hash
          ? []
          : await profileDifferences(client, reading);
      const tags = await checkTags(client, reading);
      if (!side.unchangedSince(reading)) continue; // a round wrote to the store while it was read
      return {
        state: 'checked',
        corpusVersion: version,
        posts: postgresMonths.reduce((sum, month) => sum + Number(month.posts), 0),
        profiles: Number(postgresProfiles.n),
        months,
        profileDifferences: profiles,
        tags,
      };
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }
  return { state: 'moving', attempts };
}

/** What a check found different: posts, profiles, and posts whose tags differ (empty unless checked). */
export interface DifferingIds {
  posts: number[];
  profiles: number[];
  tagPosts: number[];
}

/** The posts, profiles and posts' tags a check found different (empty unless checked). */
export function differingIds(check: StoreCheck): DifferingIds {
  if (check.state !== 'checked') return { posts: [], profiles: [], tagPosts: [] };
  return {
    posts: [...new Set(check.months.flatMap((month) => month.posts.map((post) => post.id)))].sort(
      (a, b) => a - b,
    ),
    profiles: check.profileDifferences.map((profile) => profile.id),
    tagPosts: differingTagPosts(check.tags),
  };
}

/** How many ids a check found different. */
export const differingCount = (ids: DifferingIds) =>
  ids.posts.length + ids.profiles.length + ids.tagPosts.length;

/** Beyond this many differing posts and profiles the repair asks for a rebuild rather than re-feeding them. */
export const REFEED_MAX_IDS = 100_000;

/**
 * Feeds `posts` and `profiles` through the change feed again: on the change path, the corpus version raised (answers
 * cached from the store as it was are recomputed) and an outbox batch naming them appended, which the applier applies
 * as any other; and `tagPosts`, the posts whose tags differ, as a batch of their own (corpus_tags_changed). Returns the
 * corpus version the batches made.
 */
export async function refeedStore(
  pool: pg.Pool,
  {
    posts,
    profiles,
    tagPosts = [],
  }: { posts: readonly number[]; profiles: readonly number[]; tagPosts?: readonly number[] },
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT corpus_changes_begin()');
    await client.query('SELECT corpus_touch()');
    if (posts.length + profiles.length > 0)
      await client.query('SELECT analytics_outbox_append($1::bigint[], $2::bigint[])', [posts, profiles]);
    await client.query('SELECT corpus_tags_changed($1::bigint[])', [tagPosts]);
    const { rows } = await client.query<{ version: string }>('SELECT version::text FROM corpus_state');
    await client.query('COMMIT');
    return Number(rows[0]!.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const count = (n: number | string) => Number(n).toLocaleString('en-US');

const ROW_FIELDS = ['author', 'likes', 'comments', 'shares', 'views', 'engagement', 'subreddit'] as const;
/** A field's value in a sentence: a post without a subreddit has none. */
const shown = (value: string | undefined) => (value === '' ? 'none' : value);

function postWords(post: PostDifference): string {
  if (post.store === null) return `post ${post.id} is missing from the store`;
  if (post.postgres === null) return `post ${post.id} is in the store but not in PostgreSQL`;
  if (post.held > 1) return `post ${post.id} is held ${post.held} times by the store`;
  const ours = post.postgres.split(' ');
  const theirs = post.store.split(' ');
  const fields = ROW_FIELDS.flatMap((field, i) =>
    ours[i] === theirs[i]
      ? []
      : [`${field} ${shown(theirs[i])} in the store, ${shown(ours[i])} in PostgreSQL`],
  );
  return `post ${post.id} has ${fields.join(', ')}`;
}

const SHOWN = 10;

/** The check in sentences, one a line. */
export function describeStoreCheck(check: StoreCheck): string[] {
  if (check.state === 'behind') {
    return [
      `The analytics store is behind PostgreSQL (${check.storeVersion === null ? 'it cannot answer yet' : `corpus version ${check.storeVersion}`}, PostgreSQL's is ${check.postgresVersion}): it was not checked. Check again once the applier has caught up.`,
    ];
  }
  if (check.state === 'moving') {
    return [
      `The corpus changed while each of ${check.attempts} attempts read it: the analytics store could not be compared at one version. Check again when fewer writes are under way.`,
    ];
  }
  const lines: string[] = [];
  for (const month of check.months) {
    const { postgres, store } = month;
    const figures = FIGURES.flatMap((figure) => {
      const a = postgres?.[figure] ?? '0';
      const b = store?.[figure] ?? '0';
      return a === b ? [] : [`${figure} ${count(b)} in the store, ${count(a)} in PostgreSQL`];
    });
    const shown = month.posts.slice(0, SHOWN).map(postWords);
    const more = month.posts.length > SHOWN ? `; and ${count(month.posts.length - SHOWN)} more posts` : '';
    lines.push(
      `${month.month}: ${figures.length > 0 ? figures.join('; ') : 'the same counts and sums, other posts'}` +
        `${shown.length > 0 ? ` (${shown.join('; ')}${more})` : ''}.`,
    );
  }
  const profiles = check.profileDifferences;
  if (profiles.length > 0) {
    const shown = profiles
      .slice(0, SHOWN)
      .map((profile) =>
        profile.store === null
          ? `profile ${profile.id} is missing from the store`
          : profile.postgres === null
            ? `profile ${profile.id} is in the store but not in PostgreSQL`
            : profile.store === profile.postgres
              ? `profile ${profile.id} is held more than once by the store`
              : `profile ${profile.id} has ${count(profile.store)} followers in the store, ${count(profile.postgres)} in PostgreSQL`,
      );
    lines.push(
      `profiles: ${count(profiles.length)} differ (${shown.join('; ')}${profiles.length > SHOWN ? '; …' : ''}).`,
    );
  }
  const tags = describeTagCheck(check.tags);
  if (tags !== null) lines.push(tags);
  if (lines.length === 0) {
    lines.push(
      `The analytics store equals PostgreSQL at corpus version ${check.corpusVersion} (${count(check.posts)} posts ` +
        `by month: counts, likes, comments, shares, views, engagement and ids; ${count(check.profiles)} profiles' ` +
        `followers; ${count(check.tags.pairs)} tags carried by posts).`,
    );
  }
  return lines;
}
