// Loads a generated corpus into PostgreSQL: profiles first, then posts in the order they were posted
// (time-order.ts), in batches, each batch one transaction with one COPY … FROM STDIN. Engagement is a generated
// column and is never written.
import type pg from 'pg';
import { applyChanges, beginChanges } from '../changes';
import { arrayLiteral, copyLine, copyLines } from '../copy';
import type { GenPost } from './posts';
import { planCorpus, type CorpusOptions } from './plan';
import type { GenProfile } from './profiles';
import { TimeOrderSpill } from './time-order';

/**
 * refuse: only into an empty corpus; replace: truncate posts and profiles first; append: add to what is there;
 * if-empty: load only when there are no posts (else do nothing) — the demo corpus at start.
 */
export type LoadMode = 'refuse' | 'replace' | 'append' | 'if-empty';

interface LoadProgress {
  /** generate: posts drawn and spilled in time order; posts: posts stored. */
  phase: 'profiles' | 'generate' | 'posts' | 'analyze';
  done: number;
  total: number;
}

export interface GenerateOptions extends CorpusOptions {
  mode?: LoadMode;
  /** Posts per transaction (default 50,000). */
  batchSize?: number;
  onProgress?: (progress: LoadProgress) => void;
  /** Called when --replace also empties tables that reference posts or profiles. */
  onWarning?: (message: string) => void;
}

export interface GenerateResult {
  /** False when mode if-empty found posts and loaded nothing. */
  loaded: boolean;
  profiles: number;
  posts: number;
  /** Milliseconds spent, total and on the posts alone (generating and storing them). */
  elapsedMs: number;
  postsMs: number;
}

export class CorpusLoadError extends Error {}

const PROFILE_COLUMNS =
  'platform, external_id, handle, display_name, followers, following, verified, bio, country, language, avatar_url';
const POST_COLUMNS =
  'platform, external_id, author_id, text, language, posted_at, kind, media, likes, comments, shares, views, url, ' +
  'hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model, sentiment_rated';

function profileLine(p: GenProfile): string {
  return copyLine([
    p.platform,
    p.externalId,
    p.handle,
    p.displayName,
    p.followers,
    p.following,
    p.verified ? 't' : 'f',
    p.bio,
    p.country,
    p.language,
    p.avatarUrl,
  ]);
}

function postLine(p: GenPost, authorId: number): string {
  return copyLine([
    p.platform,
    p.externalId,
    authorId,
    p.text,
    p.language,
    new Date(p.postedAt).toISOString(),
    p.kind,
    p.media,
    p.likes,
    p.comments,
    p.shares,
    p.views,
    p.url,
    arrayLiteral(p.hashtags),
    arrayLiteral(p.mentions),
    arrayLiteral(p.domains),
    p.sentiment,
    p.sentimentLabel,
    p.sentimentModel,
    p.sentimentRated ? 't' : 'f',
  ]);
}

async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** Tables with a foreign key to posts or profiles (TRUNCATE … CASCADE empties them too). */
async function dependentTables(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT DISTINCT conrelid::regclass::text AS name FROM pg_constraint
      WHERE contype = 'f' AND confrelid IN ('posts'::regclass, 'profiles'::regclass)
        AND conrelid NOT IN ('posts'::regclass, 'profiles'::regclass)`,
  );
  return rows.map((r) => r.name).sort();
}

async function prepare(
  client: pg.PoolClient,
  options: GenerateOptions,
  firstPostId: string,
): Promise<LoadMode | 'skip'> {
  const mode = options.mode ?? 'refuse';
  const { rows } = await client.query<{ posts: boolean; profiles: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM posts) AS posts, EXISTS (SELECT 1 FROM profiles) AS profiles',
  );
  const empty = !rows[0]!.posts && !rows[0]!.profiles;
  if (mode === 'if-empty') return rows[0]!.posts ? 'skip' : 'append';
  if (!empty && mode === 'refuse') {
    throw new CorpusLoadError(
      'The corpus is not empty (posts or profiles exist). Pass --replace to empty it first, or --append to add to it.',
    );
  }
  if (mode === 'replace' && !empty) {
    const dependents = await dependentTables(client);
    if (dependents.length > 0) options.onWarning?.(`--replace also empties ${dependents.join(', ')}`);
    await client.query('SELECT corpus_truncate()');
  }
  if (mode === 'append') {
    const clash = await client.query('SELECT 1 FROM post_keys WHERE external_id = $1 LIMIT 1', [firstPostId]);
    if (clash.rowCount) {
      throw new CorpusLoadError(
        `Posts of seed ${options.seed} are already in the corpus; --append needs another --seed (or use --replace).`,
      );
    }
  }
  return mode;
}

async function loadProfiles(
  client: pg.PoolClient,
  profiles: GenProfile[],
  append: boolean,
): Promise<Float64Array> {
  const rows = await inTransaction(client, async () => {
    // New profiles have no posts yet: nothing but the corpus version and the analytics outbox follow them.
    await beginChanges(client);
    if (!append) {
      await copyLines(client, `profiles (${PROFILE_COLUMNS})`, profiles.map(profileLine));
    } else {
      // Appending: the brand accounts (and a same-seed profile set) may exist already; keep those.
      await client.query(
        `CREATE TEMP TABLE corpus_profiles ON COMMIT DROP AS SELECT ${PROFILE_COLUMNS} FROM profiles WITH NO DATA`,
      );
      await copyLines(client, `corpus_profiles (${PROFILE_COLUMNS})`, profiles.map(profileLine));
      await client.query(
        `INSERT INTO profiles (${PROFILE_COLUMNS}) SELECT ${PROFILE_COLUMNS} FROM corpus_profiles
         ON CONFLICT (platform, external_id) DO NOTHING`,
      );
    }
    const found = await client.query<{ id: string; platform: string; external_id: string }>(
      `SELECT p.id, p.platform, p.external_id FROM profiles p
         JOIN unnest($1::platform[], $2::text[]) AS g(platform, external_id) USING (platform, external_id)`,
      [profiles.map((p) => p.platform), profiles.map((p) => p.externalId)],
    );
    await client.query('SELECT corpus_profiles_added($1::bigint[])', [found.rows.map((r) => r.id)]);
    return found.rows;
  });
  const byKey = new Map(rows.map((r) => [`${r.platform}:${r.external_id}`, Number(r.id)]));
  const ids = new Float64Array(profiles.length);
  profiles.forEach((p, i) => {
    const id = byKey.get(`${p.platform}:${p.externalId}`);
    if (id === undefined) throw new CorpusLoadError(`Profile ${p.externalId} was not stored`);
    ids[i] = id;
  });
  return ids;
}

/** Generates a corpus and loads it through `pool`. Deterministic for (seed, posts, days, end). */
export async function generateCorpus(pool: pg.Pool, options: GenerateOptions): Promise<GenerateResult> {
  const started = performance.now();
  const plan = planCorpus(options);
  const batchSize = Math.max(1, options.batchSize ?? 50_000);
  const report = options.onProgress ?? (() => {});
  const client = await pool.connect();
  try {
    // A crash loses at most the last batches, never consistency; bulk loads commit much faster without the flush.
    await client.query('SET synchronous_commit = off');
    await client.query(`SELECT pg_advisory_lock(hashtext('murmur:corpus'))`);
    try {
      const mode = await prepare(client, options, `gen-${options.seed}-p0`);
      if (mode === 'skip') {
        return { loaded: false, profiles: 0, posts: 0, elapsedMs: performance.now() - started, postsMs: 0 };
      }
      report({ phase: 'profiles', done: 0, total: plan.profiles.length });
      const ids = await loadProfiles(client, plan.profiles, mode === 'append');
      report({ phase: 'profiles', done: plan.profiles.length, total: plan.profiles.length });

      const postsStarted = performance.now();
      const spill = new TimeOrderSpill();
      try {
        report({ phase: 'generate', done: 0, total: plan.postCount });
        for (const post of plan.posts()) {
          spill.add(post.postedAt, postLine(post, ids[post.authorIndex]!));
          if (spill.size % 5_000 === 0)
            report({ phase: 'generate', done: spill.size, total: plan.postCount });
        }
        report({ phase: 'generate', done: spill.size, total: plan.postCount });
        const posts = spill.ordered();
        let done = 0;
        report({ phase: 'posts', done, total: plan.postCount });
        while (done < plan.postCount) {
          const size = Math.min(batchSize, plan.postCount - done);
          const lines = (function* () {
            for (let i = 0; i < size; i++) {
              const next = posts.next();
              if (next.done) return;
              yield next.value;
              if ((i + 1) % 5_000 === 0)
                report({ phase: 'posts', done: done + i + 1, total: plan.postCount });
            }
          })();
          // Through the change path (changes.ts): the batch is copied into corpus_added, then written to its
          // months' partitions with their keys and the store's outbox rows, in one transaction.
          await inTransaction(client, async () => {
            await beginChanges(client);
            await copyLines(client, `corpus_added (${POST_COLUMNS})`, lines);
            await applyChanges(client);
          });
          done += size;
          report({ phase: 'posts', done, total: plan.postCount });
        }
      } finally {
        spill.dispose();
      }
      const postsMs = performance.now() - postsStarted;
      report({ phase: 'analyze', done: 0, total: 1 });
      // VACUUM as well as ANALYZE: it marks the new pages all-visible (index-only scans then skip the heap) and
      // merges the GIN index's pending entries, which autovacuum would otherwise do a little later, under the first
      // readers.
      await client.query('VACUUM (ANALYZE) profiles, posts, post_keys');
      report({ phase: 'analyze', done: 1, total: 1 });
      return {
        loaded: true,
        profiles: plan.profiles.length,
        posts: plan.postCount,
        elapsedMs: performance.now() - started,
        postsMs,
      };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('murmur:corpus'))`).catch(() => {});
      await client.query('RESET synchronous_commit').catch(() => {});
    }
  } finally {
    client.release();
  }
}
