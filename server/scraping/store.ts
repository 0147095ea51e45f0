// Reads and writes of the scraping tables for the API, and their answers' shapes.
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { storeCorpusTotals } from '@server/analytics/figures/totals';
import type { AnalyticsService } from '@server/analytics/service';
import { fromStore } from '@server/social/insights/store-source';
import type { Executor } from '@server/workspaces/access';
import { scrapeJobs, scrapeLogs, scrapeRefusals, scrapeRuns } from '@server/db/scraping-schema';
import { ApiError } from '@server/errors';
import {
  OPEN_RUN_STATUSES,
  SOURCE_PLATFORM,
  type CorpusTotals,
  type ScrapeJob,
  type ScrapeRun,
  type SourceParams,
} from '@contract/scraping';

type JobRow = typeof scrapeJobs.$inferSelect;
type RunRow = typeof scrapeRuns.$inferSelect;

export const jobNotFound = () => new ApiError(404, 'job_not_found', 'No such collection job.');
const runNotFound = () => new ApiError(404, 'run_not_found', 'No such run.');
export const runInProgress = () =>
  new ApiError(
    409,
    'run_in_progress',
    'This job already has a run under way (or paused); wait for it or cancel it.',
  );
export const jobCancelled = () =>
  new ApiError(409, 'job_cancelled', 'This job was cancelled; create a new job to collect again.');

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

function toRun(run: RunRow): ScrapeRun {
  return {
    id: run.id,
    job_id: run.jobId,
    status: run.status as ScrapeRun['status'],
    pages: run.pages,
    fetched: run.fetched,
    inserted: run.inserted,
    updated: run.updated,
    unchanged: run.unchanged,
    refused: run.refused,
    removed: run.removed,
    bytes_done: run.bytesDone,
    bytes_total: run.bytesTotal,
    attempts: run.attempts,
    error: run.error,
    queued_at: seconds(run.queuedAt)!,
    started_at: seconds(run.startedAt),
    finished_at: seconds(run.finishedAt),
  };
}

export function toJob(job: JobRow, lastRun: RunRow | null): ScrapeJob {
  const params = job.params as SourceParams;
  return {
    id: job.id,
    name: job.name,
    source: params.source,
    platform: params.source === 'upload' ? null : SOURCE_PLATFORM[params.source],
    params,
    every_minutes: job.everyMinutes,
    state: job.state as ScrapeJob['state'],
    next_run_at: seconds(job.nextRunAt),
    created_at: seconds(job.createdAt)!,
    updated_at: seconds(job.updatedAt)!,
    last_run: lastRun ? toRun(lastRun) : null,
  };
}

async function lastRuns(db: Db, jobIds: string[]): Promise<Map<string, RunRow>> {
  if (jobIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([scrapeRuns.jobId])
    .from(scrapeRuns)
    .where(inArray(scrapeRuns.jobId, jobIds))
    .orderBy(scrapeRuns.jobId, desc(scrapeRuns.queuedAt));
  return new Map(rows.map((r) => [r.jobId, r]));
}

/**
 * A job and its runs read from one snapshot: read one after the other, a run that ends in between would show as
 * finished beside the job's next run from before it ended (none).
 */
const SNAPSHOT = { isolationLevel: 'repeatable read', accessMode: 'read only' } as const;

export async function listJobs(db: Db): Promise<ScrapeJob[]> {
  return db.transaction(async (tx) => {
    const jobs = await tx.select().from(scrapeJobs).orderBy(desc(scrapeJobs.createdAt));
    const runs = await lastRuns(
      tx,
      jobs.map((j) => j.id),
    );
    return jobs.map((job) => toJob(job, runs.get(job.id) ?? null));
  }, SNAPSHOT);
}

async function findJob(db: Db, jobId: string): Promise<JobRow> {
  const [job] = await db.select().from(scrapeJobs).where(eq(scrapeJobs.id, jobId));
  if (!job) throw jobNotFound();
  return job;
}

export async function jobDetail(db: Db, jobId: string) {
  return db.transaction(async (tx) => {
    const job = await findJob(tx, jobId);
    const runs = await tx
      .select()
      .from(scrapeRuns)
      .where(eq(scrapeRuns.jobId, jobId))
      .orderBy(desc(scrapeRuns.queuedAt))
      .limit(20);
    return { job: toJob(job, runs[0] ?? null), runs: runs.map(toRun) };
  }, SNAPSHOT);
}

export async function openRun(db: Executor, jobId: string): Promise<RunRow | undefined> {
  const [run] = await db
    .select()
    .from(scrapeRuns)
    .where(and(eq(scrapeRuns.jobId, jobId), inArray(scrapeRuns.status, [...OPEN_RUN_STATUSES])));
  return run;
}

async function findRun(db: Db, runId: string): Promise<RunRow> {
  const [run] = await db.select().from(scrapeRuns).where(eq(scrapeRuns.id, runId));
  if (!run) throw runNotFound();
  return run;
}

export async function runLog(db: Db, runId: string) {
  await findRun(db, runId);
  const rows = await db
    .select()
    .from(scrapeLogs)
    .where(eq(scrapeLogs.runId, runId))
    .orderBy(scrapeLogs.id)
    .limit(2_000);
  return {
    entries: rows.map((r) => ({
      id: r.id,
      at: seconds(r.at)!,
      level: r.level as 'info' | 'warn' | 'error',
      message: r.message,
    })),
  };
}

export async function runRefusals(db: Db, runId: string) {
  const run = await findRun(db, runId);
  const rows = await db
    .select()
    .from(scrapeRefusals)
    .where(eq(scrapeRefusals.runId, runId))
    .orderBy(scrapeRefusals.id)
    .limit(500);
  return {
    items: rows.map((r) => ({ id: r.id, ref: r.ref, reason: r.reason, raw: r.raw })),
    total: run.refused,
  };
}

/**
 * Posts per platform and UTC day over the last `days` days, and per platform in all: counted by the analytics store
 * (storeCorpusTotals).
 */
export async function corpusTotals(db: Db, days: number, service?: AnalyticsService): Promise<CorpusTotals> {
  const today = new Date();
  const first = new Date(
    Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)),
  );
  const dayList = Array.from({ length: days }, (_, i) =>
    new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10),
  );
  const { recent, allTime } = await fromStore(
    db,
    { timeZone: 'UTC' },
    service,
    (store) => storeCorpusTotals(store, first),
    async (_tx, totals) => totals,
  );
  const byPlatform = new Map<string, number[]>();
  for (const row of recent) {
    const series = byPlatform.get(row.platform) ?? dayList.map(() => 0);
    const index = dayList.indexOf(row.day);
    if (index >= 0) series[index] = row.posts;
    byPlatform.set(row.platform, series);
  }
  type Platform = CorpusTotals['all_time'][number]['platform'];
  return {
    days: dayList,
    platforms: [...byPlatform.entries()]
      .map(([platform, posts]) => ({
        platform: platform as Platform,
        posts,
        total: posts.reduce((a, b) => a + b, 0),
      }))
      .sort((a, b) => b.total - a.total),
    all_time: allTime.map((r) => ({ platform: r.platform as Platform, posts: r.posts })),
  };
}
