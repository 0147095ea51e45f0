// One run of a collection job, as the queue's worker executes it: page after page from the job's cursor, each page's
// posts, refused items, counts, log line and the new cursor committed in one transaction. A crash loses at most the
// page in flight, which the next attempt fetches again from the committed cursor: nothing is lost, and nothing is
// counted or stored twice. Between pages the run looks at what staff asked (pause, cancel) and at the queue's signal.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { SOURCE_CREDENTIAL, sourceParamsSchema, type SourceParams } from '@contract/scraping';
import { dbMessage, ImportFileError, importCorpus, isRowError } from '@server/social/corpus/import/run';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import { upsertRows } from '@server/social/corpus/import/write';
import { connectorFor } from './connectors';
import { PermanentError, RateLimitedError, type HttpOptions } from './connectors/http';
import type { ConnectorContext, Page, SourceUrls } from './connectors/types';
import { loadCredential, spendQuota } from './credentials';
import { prepareItems, type Refusal } from './prepare';
import { finishRun, inTransaction, loadRun, log, OVER, pauseRun, type RunRow } from './run-rows';
import { uploadPath } from './uploads';

export interface RunnerDeps {
  pool: pg.Pool;
  http: HttpOptions;
  urls: SourceUrls;
  /** Opens the jobs' credentials (server/scraping/credentials.ts); absent, a job that needs one fails saying so. */
  secretsKey?: Buffer;
  uploadDir: string;
  /** Waits for a rate limit up to this long in the worker; longer ones put the run back on the queue for later. */
  maxInlineWaitMs: number;
  /** Puts a run back on the queue to start after `at` (a long rate-limit wait), in the caller's transaction. */
  requeue(client: pg.PoolClient, runId: string, at: Date): Promise<string | null>;
}

export interface Attempt {
  runId: string;
  /** 0 on the first attempt. */
  retryCount: number;
  retryLimit: number;
  signal: AbortSignal;
}

/** The queue retries the run after its backoff (the error's message is in the run's log). */
export class RetryableRunError extends Error {}

async function insertRefusals(client: pg.PoolClient, runId: string, refused: readonly Refusal[]) {
  if (refused.length === 0) return;
  await client.query(
    `INSERT INTO scrape_refusals (run_id, ref, reason, raw)
       SELECT $1, r.ref, r.reason, r.raw FROM jsonb_to_recordset($2::jsonb) AS r(ref text, reason text, raw text)`,
    [
      runId,
      JSON.stringify(
        refused.map((r) => ({ ...r, ref: r.ref.slice(0, 500), reason: r.reason.slice(0, 2_000) })),
      ),
    ],
  );
}

/**
 * Upserts a page's rows in the open transaction. A row PostgreSQL refuses (an index row too large, say) is found by
 * retrying row by row behind savepoints and refused with the database's reason; the other rows land.
 */
export async function upsertPage(
  client: pg.PoolClient,
  rows: ImportRow[],
  refs: string[],
  refused: Refusal[],
) {
  if (rows.length === 0) return { inserted: 0, updated: 0 };
  await client.query('SAVEPOINT page');
  try {
    const result = await upsertRows(client, rows);
    await client.query('RELEASE SAVEPOINT page');
    return result;
  } catch (error) {
    if (!isRowError(error)) throw error;
    await client.query('ROLLBACK TO SAVEPOINT page');
  }
  let inserted = 0;
  let updated = 0;
  for (const [index, row] of rows.entries()) {
    await client.query('SAVEPOINT row');
    try {
      const result = await upsertRows(client, [row]);
      inserted += result.inserted;
      updated += result.updated;
      await client.query('RELEASE SAVEPOINT row');
    } catch (error) {
      if (!isRowError(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT row');
      refused.push({ ref: refs[index] ?? row.externalId, reason: dbMessage(error), raw: null });
    }
  }
  return { inserted, updated };
}

/** Takes the posts the source says are gone out of the corpus (with their keys and the store's copy). */
export async function removeGone(client: pg.PoolClient, gone: { platform: string; external_id: string }[]) {
  // The posts are found through their keys (post_keys' primary key), then by id in their months alone: posts has no
  // index on (platform, external_id) and would be read whole, every month of it.
  const { rows } = await client.query<{ n: string }>(
    `SELECT corpus_delete_posts(format('id = ANY (%L::bigint[]) AND posted_at = ANY (%L::timestamptz[])', k.ids,
       k.times)) AS n
     FROM (SELECT coalesce(array_agg(id), '{}') AS ids, coalesce(array_agg(posted_at), '{}') AS times FROM post_keys
       WHERE (platform, external_id) IN (SELECT * FROM unnest($1::platform[], $2::text[]))) k`,
    [gone.map((g) => g.platform), gone.map((g) => g.external_id)],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Commits one page: posts, refusals, removals, counts, the job's cursor and a log line, together. */
async function commitPage(deps: RunnerDeps, run: RunRow, page: Page) {
  const { rows, refused, gone } = prepareItems(page.items);
  const refs = page.items.filter((item) => 'row' in item).map((item) => item.ref);
  await inTransaction(deps.pool, async (client) => {
    // A second worker holding the same run (a retry racing a slow first attempt) waits here, then sees the page done.
    await client.query('SELECT 1 FROM scrape_runs WHERE id = $1 FOR UPDATE', [run.id]);
    const { inserted, updated } = await upsertPage(client, rows, refs, refused);
    const removed = gone.length > 0 ? await removeGone(client, gone) : 0;
    const fetched = page.items.length;
    const unchanged = fetched - refused.length - inserted - updated - gone.length;
    await insertRefusals(client, run.id, refused);
    await client.query(
      `UPDATE scrape_runs SET pages = pages + 1, result_pages = result_pages + $8, fetched = fetched + $2,
         inserted = inserted + $3, updated = updated + $4, unchanged = unchanged + $5, refused = refused + $6,
         removed = removed + $7, heartbeat_at = now()
       WHERE id = $1`,
      [run.id, fetched, inserted, updated, unchanged, refused.length, removed, page.child ? 0 : 1],
    );
    await client.query('UPDATE scrape_jobs SET cursor = $2::jsonb, updated_at = now() WHERE id = $1', [
      run.job_id,
      JSON.stringify(page.cursor ?? null),
    ]);
    await log(
      client,
      run.id,
      refused.length > 0 ? 'warn' : 'info',
      `${page.note} → ${inserted} new, ${updated} updated, ${unchanged} unchanged, ${refused.length} refused` +
        (gone.length > 0 ? `, ${removed} removed (deleted at the source)` : ''),
    );
  });
  run.pages += 1;
  if (!page.child) run.result_pages += 1;
  run.cursor = page.cursor;
}

async function runUpload(deps: RunnerDeps, run: RunRow, params: Extract<SourceParams, { source: 'upload' }>) {
  const path = uploadPath(deps.uploadDir, params.upload_id, params.format);
  const refused: Refusal[] = [];
  let progress = Promise.resolve();
  let lastReport = 0;
  const summary = await importCorpus(deps.pool, path, {
    format: params.format,
    onRejected: (row) => {
      refused.push({ ref: `line ${row.line}`, reason: row.reason, raw: row.raw?.slice(0, 2_000) ?? null });
    },
    onProgress: (bytes, size) => {
      if (Date.now() - lastReport < 500 && bytes < size) return;
      lastReport = Date.now();
      progress = progress.then(async () => {
        await deps.pool.query(
          'UPDATE scrape_runs SET bytes_done = $2, bytes_total = $3, heartbeat_at = now() WHERE id = $1',
          [run.id, bytes, size],
        );
      });
    },
  });
  await progress;
  await inTransaction(deps.pool, async (client) => {
    await insertRefusals(client, run.id, refused.slice(0, 10_000));
    await client.query(
      `UPDATE scrape_runs SET pages = 1, fetched = $2, inserted = $3, updated = $4, unchanged = $5, refused = $6
       WHERE id = $1`,
      [run.id, summary.rows, summary.inserted, summary.updated, summary.unchanged, summary.rejected],
    );
    await finishRun(
      client,
      run,
      'succeeded',
      `Imported ${params.file_name}: ${summary.rows} rows, ${summary.inserted} new, ${summary.updated} updated, ` +
        `${summary.unchanged} unchanged, ${summary.rejected} refused in ${(summary.elapsedMs / 1000).toFixed(1)} s.`,
    );
  });
}

/** What a connector works with: the source URLs, the job's credential opened, the quota it charges. */
async function contextOf(
  deps: RunnerDeps,
  params: Exclude<SourceParams, { source: 'upload' }>,
  signal: AbortSignal,
): Promise<ConnectorContext> {
  const base = { http: deps.http, signal, urls: deps.urls, spend: async () => {} };
  if (!SOURCE_CREDENTIAL[params.source] || !('credential_id' in params)) return base;
  const credential = await loadCredential(deps.pool, deps.secretsKey, params.credential_id);
  return {
    ...base,
    credential: { id: credential.id, secret: credential.secret },
    spend: async (units) => {
      await spendQuota(deps.pool, credential, units);
    },
  };
}

/** Executes (or resumes) a run. Throws RetryableRunError for the queue to retry with backoff. */
export async function executeRun(deps: RunnerDeps, attempt: Attempt): Promise<void> {
  const run = await inTransaction(deps.pool, async (client) => {
    const found = await loadRun(client, attempt.runId, true);
    if (!found || OVER.includes(found.status)) return undefined;
    if (found.state === 'cancelled') {
      await finishRun(client, found, 'cancelled', 'Cancelled before it started.');
      return undefined;
    }
    if (found.state === 'paused') {
      await pauseRun(client, found);
      return undefined;
    }
    await client.query(
      `UPDATE scrape_runs SET status = 'running', attempts = attempts + 1, started_at = coalesce(started_at, now()),
         heartbeat_at = now() WHERE id = $1`,
      [found.id],
    );
    await log(
      client,
      found.id,
      'info',
      found.pages > 0
        ? `Resumed from the saved cursor after ${found.pages} pages (attempt ${attempt.retryCount + 1}).`
        : `Started (attempt ${attempt.retryCount + 1}).`,
    );
    return found;
  });
  if (!run) return;
  const parsed = sourceParamsSchema.safeParse(run.params);
  if (!parsed.success) {
    await inTransaction(deps.pool, (c) =>
      finishRun(c, run, 'failed', 'The job’s parameters are not valid.', 'invalid parameters'),
    );
    return;
  }
  const params = parsed.data;
  try {
    if (params.source === 'upload') {
      await runUpload(deps, run, params);
      return;
    }
    const connector = connectorFor(params);
    const context = await contextOf(deps, params, attempt.signal);
    for (;;) {
      if (attempt.signal.aborted)
        throw new RetryableRunError('The worker is stopping; the run resumes at its next start.');
      // What staff asked meanwhile (pause, cancel) is read between pages.
      const stop = await inTransaction(deps.pool, async (client) => {
        const current = await loadRun(client, run.id, true);
        if (!current || current.state === 'active') return false;
        if (current.state === 'paused') await pauseRun(client, { ...current, pages: run.pages });
        else await finishRun(client, current, 'cancelled', `Cancelled after ${run.pages} pages.`);
        return true;
      });
      if (stop) return;
      // The budget counts pages of results; replies still due for the last page's posts are fetched first.
      if (run.result_pages >= params.max_pages && !connector.childrenPending?.(run.cursor)) {
        await inTransaction(deps.pool, async (client) => {
          await client.query('UPDATE scrape_jobs SET cursor = $2::jsonb WHERE id = $1', [
            run.job_id,
            JSON.stringify(connector.finish(run.cursor) ?? null),
          ]);
          await finishRun(
            client,
            run,
            'succeeded',
            `Done: the run's ${params.max_pages}-page budget is spent.`,
          );
        });
        return;
      }
      let page: Page;
      try {
        page = await connector.fetchPage(params, run.cursor, context);
      } catch (error) {
        if (!(error instanceof RateLimitedError)) throw error;
        if (error.waitMs <= deps.maxInlineWaitMs) {
          await log(deps.pool, run.id, 'warn', `${error.message}: waiting, then asking again.`);
          await sleep(error.waitMs, undefined, { signal: attempt.signal }).catch(() => {});
          continue;
        }
        const at = new Date(Date.now() + error.waitMs);
        await inTransaction(deps.pool, async (client) => {
          await client.query(
            `UPDATE scrape_runs SET status = 'waiting', heartbeat_at = now() WHERE id = $1`,
            [run.id],
          );
          await deps.requeue(client, run.id, at);
          await log(client, run.id, 'warn', `${error.message}: the run continues at ${at.toISOString()}.`);
        });
        return;
      }
      await commitPage(deps, run, page);
      if (page.done) {
        await inTransaction(deps.pool, (client) =>
          finishRun(client, run, 'succeeded', `Done after ${run.pages} pages: the source has nothing more.`),
        );
        return;
      }
    }
  } catch (error) {
    const message = (error as Error).message;
    const permanent = error instanceof PermanentError || error instanceof ImportFileError;
    const lastAttempt = attempt.retryCount >= attempt.retryLimit;
    if (permanent || lastAttempt) {
      await inTransaction(deps.pool, (client) =>
        finishRun(
          client,
          run,
          'failed',
          `Failed${permanent ? '' : ` after ${attempt.retryCount + 1} attempts`}: ${message}`,
          message,
        ),
      );
      return;
    }
    await deps.pool.query(`UPDATE scrape_runs SET status = 'waiting', heartbeat_at = now() WHERE id = $1`, [
      run.id,
    ]);
    await log(
      deps.pool,
      run.id,
      'warn',
      `Attempt ${attempt.retryCount + 1} failed: ${message}. Retrying with backoff (${attempt.retryLimit - attempt.retryCount} left).`,
    );
    throw new RetryableRunError(message);
  }
}
