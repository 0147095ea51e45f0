// How far the sentiment rescan (rescan.ts) is, as the scraping area and the sentiment figures' answers say it
// (contract/sentiment-rescan.ts): its progress from its row, the time left at the rate of its last two minutes of
// batches, and the corpus's posts per scorer version, read at most every few seconds (one read of every post).
import type pg from 'pg';
import type { SentimentRescan, SentimentRescanStatus } from '@contract/sentiment-rescan';
import { rescanProgress } from './rescan';
import { sentimentModelVersion } from './sentiment-model';

/** How long an answer waits for the rescan's state before it takes the last known one. */
const RUNNING_WAIT_MS = 250;
/** How old the posts-per-version counts may be. */
const MODELS_MAX_AGE_MS = 5_000;

export interface RescanStatusReader {
  /** The server's version and its rescan (null when none was ever needed). */
  status(): Promise<SentimentRescanStatus>;
  /** The rescan while it runs; null when there is none or it has finished (the figures need no note then). */
  running(): Promise<SentimentRescan | null>;
}

export function rescanStatusReader(pool: pg.Pool, version = sentimentModelVersion()): RescanStatusReader {
  let last: SentimentRescan | null = null;
  let reading: Promise<SentimentRescan | null> | undefined;
  let models: { at: number; value: Promise<Record<string, number>> } | undefined;
  const postsByModel = () => {
    if (!models || Date.now() - models.at > MODELS_MAX_AGE_MS) {
      const value = pool
        .query<{ model: string; n: string }>(
          'SELECT sentiment_model AS model, count(*)::text AS n FROM posts GROUP BY 1 ORDER BY 1',
        )
        .then(({ rows }) => Object.fromEntries(rows.map((row) => [row.model, Number(row.n)])));
      // A failed read is not kept.
      value.catch(() => (models = undefined));
      models = { at: Date.now(), value };
    }
    return models.value;
  };

  async function secondsLeft(left: number): Promise<number | null> {
    const { rows } = await pool.query<{ n: string | null; seconds: number | null }>(
      `SELECT sum(rescored)::text AS n, extract(epoch FROM max(at) - min(at))::float8 AS seconds
        FROM sentiment_rescan_batches WHERE model = $1 AND at > now() - interval '2 minutes'`,
      [version],
    );
    const n = Number(rows[0]?.n ?? 0);
    const seconds = rows[0]?.seconds ?? 0;
    if (n === 0 || seconds <= 0) return null;
    return Math.ceil((left * seconds) / n);
  }

  async function read(): Promise<SentimentRescan | null> {
    const progress = await rescanProgress(pool, version);
    if (!progress) return null;
    const { total, done, finishedAt } = progress;
    return {
      model: version,
      rescanned: done,
      total,
      percent: finishedAt ? 100 : total === 0 ? 0 : Math.min(99, Math.floor((done * 100) / total)),
      seconds_left: finishedAt ? 0 : await secondsLeft(total - done),
      models: await postsByModel(),
      started_at: progress.startedAt,
      finished_at: finishedAt,
    };
  }

  return {
    async status() {
      return { model: version, rescan: await read() };
    },
    async running() {
      // What an answer (a cached one too) carries: one read at a time (a corpus locked, the pool taken by
      // computations waiting on it, must not gather more), and no answer waits for it more than RUNNING_WAIT_MS,
      // taking the last known state then.
      reading ??= (async () => {
        try {
          const progress = await rescanProgress(pool, version);
          last = progress && !progress.finishedAt ? await read() : null;
          return last;
        } finally {
          reading = undefined;
        }
      })();
      reading.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<SentimentRescan | null>(
        (done) => (timer = setTimeout(() => done(last), RUNNING_WAIT_MS)),
      );
      try {
        return await Promise.race([reading, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
