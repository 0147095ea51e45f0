// The corpus follows the model (issue 53, item 5): every post records the version of the scorer that gave it its
// sentiment (posts.sentiment_model, migration 0037), and when posts of another version exist (a new model shipped, or
// posts stored before versions were recorded: 'unknown'), this rescores them in the background, in batches in id
// order. Each batch is one transaction, in the corpus's change path (the corpus lock: writers take turns): the posts'
// new sentiment and version, the rescan's cursor (the last id done) and a row of the batch log, committed together.
// A process killed at any point (kill -9) leaves the last committed batch; the next run resumes after its cursor, so
// no post is rescored twice nor left out. A post whose label or score changed goes through corpus_changes_apply()
// (its row replaced, the corpus version raised, the analytics store's outbox fed); one that keeps them only has its
// version set. The posts stored before migration 0041 have no rating yet (sentiment_rated null): a rescan takes them
// as it takes posts of another version, and records whether each is rated (sentimentRated()); a post that becomes
// "not rated" (or stops being) is replaced through the change path, as the store counts it apart. Corrections
// (sentiment_corrections) are rows of their own that a rescan never reads nor writes: a corrected post gets its new
// estimate, and its workspace's figures keep counting the correction.
import type pg from 'pg';
import type { PeriodicJob } from '@server/scheduler';
import type { SentimentLabel } from './sentiment';
import { sentimentRated } from './sentiment-explain';
import { scoreSentiment, sentimentModelVersion } from './sentiment-model';

/** Posts a batch rescores: one transaction, a few hundred milliseconds of scoring. */
const RESCAN_BATCH = 2_000;

type Scorer = (
  text: string,
  language: string | null,
) => { sentiment: number; label: SentimentLabel; /** Words and emoji counted. */ tokens: number };

/** The posts a rescan to `$n` takes: of another version, or without a rating (stored before migration 0041). */
const pending = (n: number, p = '') => `(${p}sentiment_model <> $${n} OR ${p}sentiment_rated IS NULL)`;

export interface RescanOptions {
  /** The version the corpus is brought to; the shipped model's by default. */
  version?: string;
  /** The scorer of that version; scoreSentiment by default. */
  score?: Scorer;
  batchSize?: number;
  /** Stops after the batch that ends past this many milliseconds (a periodic job's slice); none by default. */
  budgetMs?: number;
  /**
   * Whether a finished rescan looks again for posts of another version (a count over every post): true by default; a
   * periodic job looks once per process, as writers of this process score with its version.
   */
  recheckFinished?: boolean;
  /** After each committed batch. */
  afterBatch?: (progress: RescanProgress) => Promise<void> | void;
  /**
   * Called inside each batch's transaction once its posts, batch-log row and cursor are written, before its commit:
   * the crash test's point to kill the process (test/support/sentiment-rescan-child.ts).
   */
  beforeCommit?: (progress: RescanProgress) => Promise<void>;
}

export interface RescanProgress {
  model: string;
  /** Posts of another version when the rescan began, and any found later. */
  total: number;
  /** Posts rescored so far. */
  done: number;
  pass: number;
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

interface RescanRow {
  model: string;
  pass: number;
  cursor: string;
  total: string;
  done: string;
  started_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const progressOf = (row: RescanRow): RescanProgress => ({
  model: row.model,
  total: Number(row.total),
  done: Number(row.done),
  pass: row.pass,
  startedAt: row.started_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  finishedAt: row.finished_at?.toISOString() ?? null,
});

const RESCAN_COLUMNS =
  'model, pass, cursor::text, total::text, done::text, started_at, updated_at, finished_at';

/** The rescan to `version`, as its last committed batch left it; null when none has begun. */
export async function rescanProgress(
  db: pg.Pool | pg.ClientBase,
  version = sentimentModelVersion(),
): Promise<RescanProgress | null> {
  const { rows } = await db.query<RescanRow>(
    `SELECT ${RESCAN_COLUMNS} FROM sentiment_rescans WHERE model = $1`,
    [version],
  );
  return rows[0] ? progressOf(rows[0]) : null;
}

const countOthers = async (client: pg.ClientBase, version: string) =>
  Number(
    (
      await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM posts WHERE ${pending(1)}`, [
        version,
      ])
    ).rows[0]!.n,
  );

/**
 * One batch of the rescan to `version`, in one transaction: begins the rescan when there is none (counting the posts
 * of other versions), rescores the next posts after the cursor, moves the cursor and logs the batch. Returns the
 * rescan after it (finished when no post of another version is left).
 */
export async function rescanBatch(
  client: pg.ClientBase,
  {
    version = sentimentModelVersion(),
    score = scoreSentiment,
    batchSize = RESCAN_BATCH,
    recheckFinished = true,
    beforeCommit,
  }: RescanOptions = {},
): Promise<RescanProgress> {
  await client.query('BEGIN');
  try {
    // The corpus lock first: writers (and other rescans) take turns, so the rows read here are the rows replaced.
    await client.query('SELECT corpus_changes_begin()');
    let { rows } = await client.query<RescanRow>(
      `SELECT ${RESCAN_COLUMNS} FROM sentiment_rescans WHERE model = $1 FOR UPDATE`,
      [version],
    );
    if (!rows[0]) {
      // Begun now; finished at once when every post is of this version already (a corpus scored by it from the start).
      const others = await countOthers(client, version);
      ({ rows } = await client.query<RescanRow>(
        `INSERT INTO sentiment_rescans (model, total, finished_at)
          VALUES ($1, $2::bigint, CASE WHEN $2::bigint = 0 THEN now() END) RETURNING ${RESCAN_COLUMNS}`,
        [version, others],
      ));
    }
    const rescan = rows[0]!;
    if (rescan.finished_at && !recheckFinished) {
      await client.query('COMMIT');
      return progressOf(rescan);
    }
    if (rescan.finished_at) {
      // A finished rescan that finds posts of another version again (written by an older server since) starts anew.
      const others = await countOthers(client, version);
      if (others === 0) {
        await client.query('COMMIT');
        return progressOf(rescan);
      }
      ({ rows } = await client.query<RescanRow>(
        `UPDATE sentiment_rescans SET pass = pass + 1, cursor = 0, total = done + $2, finished_at = NULL,
          updated_at = now() WHERE model = $1 RETURNING ${RESCAN_COLUMNS}`,
        [version, others],
      ));
      await client.query('COMMIT');
      return progressOf(rows[0]!);
    }
    const posts = await client.query<{
      id: string;
      text: string;
      language: string | null;
      sentiment: number;
      sentiment_label: SentimentLabel;
      sentiment_rated: boolean | null;
    }>(
      // Ordered by the bigint (p.id), not the text it is read as.
      `SELECT p.id::text AS id, p.text, p.language, p.sentiment, p.sentiment_label, p.sentiment_rated FROM posts p
        WHERE p.id > $1 AND ${pending(2, 'p.')} ORDER BY p.id LIMIT $3`,
      [rescan.cursor, version, batchSize],
    );
    if (posts.rows.length === 0) {
      // The pass reached the end of the ids: done, unless posts of another version were written behind the cursor.
      const others = await countOthers(client, version);
      ({ rows } = await client.query<RescanRow>(
        others === 0
          ? `UPDATE sentiment_rescans SET finished_at = now(), updated_at = now() WHERE model = $1
              RETURNING ${RESCAN_COLUMNS}`
          : `UPDATE sentiment_rescans SET pass = pass + 1, cursor = 0, total = done + $2, updated_at = now()
              WHERE model = $1 RETURNING ${RESCAN_COLUMNS}`,
        others === 0 ? [version] : [version, others],
      ));
      await client.query('COMMIT');
      return progressOf(rows[0]!);
    }
    const changed: { id: string; sentiment: number; label: SentimentLabel; rated: boolean }[] = [];
    const kept: { id: string; rated: boolean }[] = [];
    for (const post of posts.rows) {
      const { sentiment, label, tokens } = score(post.text, post.language);
      const rated = sentimentRated(tokens, label);
      // posts.sentiment is a real, read back in its shortest form: a score of 4 decimals reads back as it was given.
      // A null rating counts as rated (as the store has it): only becoming "not rated", or ceasing to be, is a change.
      if (
        label !== post.sentiment_label ||
        sentiment !== post.sentiment ||
        rated !== (post.sentiment_rated ?? true)
      )
        changed.push({ id: post.id, sentiment, label, rated });
      else kept.push({ id: post.id, rated });
    }
    if (kept.length > 0)
      await client.query(
        `UPDATE posts p SET sentiment_model = $1, sentiment_rated = k.rated
        FROM unnest($2::bigint[], $3::boolean[]) AS k(id, rated) WHERE p.id = k.id`,
        [version, kept.map((k) => k.id), kept.map((k) => k.rated)],
      );
    if (changed.length > 0) {
      await client.query(
        `INSERT INTO corpus_removed SELECT id, platform, external_id, author_id, language, posted_at, kind, media,
          likes, comments, shares, views, hashtags, mentions, domains, sentiment, sentiment_label, engagement
        FROM posts WHERE id = ANY($1::bigint[])`,
        [changed.map((c) => c.id)],
      );
      await client.query(
        `INSERT INTO corpus_added (id, platform, external_id, author_id, text, language, posted_at, kind, media, likes,
          comments, shares, views, url, hashtags, mentions, domains, sentiment, sentiment_label, sentiment_model,
          sentiment_rated)
        SELECT p.id, p.platform, p.external_id, p.author_id, p.text, p.language, p.posted_at, p.kind, p.media,
          p.likes, p.comments, p.shares, p.views, p.url, p.hashtags, p.mentions, p.domains, s.sentiment, s.label, $4,
          s.rated
        FROM unnest($1::bigint[], $2::real[], $3::sentiment_label[], $5::boolean[]) AS s(id, sentiment, label, rated)
        JOIN corpus_removed o ON o.id = s.id JOIN posts p ON p.id = o.id AND p.posted_at = o.posted_at`,
        [
          changed.map((c) => c.id),
          changed.map((c) => c.sentiment),
          changed.map((c) => c.label),
          version,
          changed.map((c) => c.rated),
        ],
      );
      await client.query('SELECT corpus_changes_apply()');
    }
    const lastId = posts.rows.at(-1)!.id;
    await client.query(
      `INSERT INTO sentiment_rescan_batches (model, pass, after_id, last_id, rescored, changed)
        VALUES ($1, $2, $3, $4, $5, $6)`,
      [version, rescan.pass, rescan.cursor, lastId, posts.rows.length, changed.length],
    );
    ({ rows } = await client.query<RescanRow>(
      `UPDATE sentiment_rescans SET cursor = $2, done = done + $3, updated_at = now() WHERE model = $1
        RETURNING ${RESCAN_COLUMNS}`,
      [version, lastId, posts.rows.length],
    ));
    await beforeCommit?.(progressOf(rows[0]!));
    await client.query('COMMIT');
    return progressOf(rows[0]!);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Runs the rescan to `version` batch by batch until no post of another version is left (or the budget is spent);
 * returns where it stands. Safe to run in several processes at once: batches take turns.
 */
export async function runRescan(pool: pg.Pool, options: RescanOptions = {}): Promise<RescanProgress> {
  const started = Date.now();
  const client = await pool.connect();
  try {
    for (;;) {
      const progress = await rescanBatch(client, options);
      if (progress.finishedAt) return progress;
      await options.afterBatch?.(progress);
      if (options.budgetMs !== undefined && Date.now() - started >= options.budgetMs) return progress;
    }
  } finally {
    client.release();
  }
}

/**
 * The periodic job (server/scheduler.ts): every minute, whichever process takes it carries the rescan on for up to
 * ten minutes; pg-boss runs one at a time, and a run cut short (a process killed) is resumed by the next from the
 * cursor. A finished rescan is looked at again once per process (its first run), as this process's writers score
 * with its own version.
 */
export function sentimentRescanJob(pool: pg.Pool, log: (message: string) => void = console.log): PeriodicJob {
  let recheckFinished = true;
  return {
    name: 'sentiment-rescan',
    cron: '* * * * *',
    timeoutSeconds: 15 * 60,
    async run() {
      const before = await rescanProgress(pool);
      const progress = await runRescan(pool, { budgetMs: 10 * 60_000, recheckFinished });
      recheckFinished = false;
      if (progress.finishedAt && progress.total > 0 && !before?.finishedAt)
        log(`Sentiment: ${progress.done.toLocaleString('en-US')} posts rescanned with ${progress.model}.`);
    },
  };
}
