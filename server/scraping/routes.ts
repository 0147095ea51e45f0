// The scraping area's API, under /api/scraping: collection jobs, their runs, logs and refused items,
// uploads of corpus files, and the corpus totals. Staff only, checked here on every request (403 staff_only) — the
// SPA's guard is a convenience, this is the rule.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import { users } from '@server/db/schema';
import { scrapeJobs, scrapeRuns } from '@server/db/scraping-schema';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import {
  corpusTotalsQuerySchema,
  corpusTotalsSchema,
  createScrapeJobBodySchema,
  scrapeJobDetailSchema,
  scrapeJobListSchema,
  scrapeJobParamsSchema,
  scrapeJobSchema,
  scrapeLogSchema,
  scrapeRefusalsSchema,
  scrapeRunParamsSchema,
  updateScrapeJobBodySchema,
  uploadQuerySchema,
} from '@contract/scraping';
import {
  corpusTotals,
  jobCancelled,
  jobDetail,
  jobNotFound,
  listJobs,
  openRun,
  runInProgress,
  runLog,
  runRefusals,
  toJob,
} from './store';
import { checkJobCredential, credentialRoutes } from './credential-routes';
import { rescanRoutes } from './rescan-routes';
import {
  clientWentAway,
  refuseDeclaredTooLarge,
  saveUpload,
  uploadDirOf,
  UploadTooLargeError,
} from './uploads';

const tags = ['scraping'];
const staffOnly = () => new ApiError(403, 'staff_only', 'The scraping area is for Murmur staff only.');

export const scrapingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const pool = (db as unknown as { $client: pg.Pool }).$client;
  const uploadDir = uploadDirOf(config, app.deps.dataDir);
  const nudge = () => app.deps.collector?.nudge();

  app.addHook('onRequest', app.requireUser);
  // Before the body is read: only staff get to send one (an upload is up to SCRAPING_UPLOAD_MAX_MB).
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const [user] = await db
      .select({ isStaff: users.isStaff })
      .from(users)
      .where(eq(users.id, request.userId));
    if (!user?.isStaff) throw staffOnly();
  });
  await app.register(credentialRoutes);
  await app.register(rescanRoutes);
  // Uploads stream to disk as they arrive: the body is the file, never buffered whole.
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

  const maxUploadBytes = config.SCRAPING_UPLOAD_MAX_MB * 1024 * 1024;
  const tooLarge = () =>
    new ApiError(413, 'too_large', `Files up to ${config.SCRAPING_UPLOAD_MAX_MB} MB can be uploaded.`);

  const jobAnswer = async (jobId: string) => (await jobDetail(db, jobId)).job;

  app.get(
    '/scraping/jobs',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Collection jobs, newest first, each with its latest run',
        response: { 200: scrapeJobListSchema, ...errorResponses(403) },
      },
    },
    async () => ({ jobs: await listJobs(db) }),
  );

  app.post(
    '/scraping/jobs',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Create a collection job; it runs now, and every `every_minutes` when given',
        description:
          'Sources: mastodon_hashtag and mastodon_account (instance URL), bluesky_search (public AppView), feed (RSS ' +
          'or Atom URL). Uploads are created by POST /api/scraping/uploads. URLs must be http(s) without ' +
          'credentials; private addresses are refused unless SCRAPING_ALLOW_PRIVATE_HOSTS is on.',
        body: createScrapeJobBodySchema,
        response: { 201: scrapeJobSchema, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      const { name, params, every_minutes } = request.body;
      if (params.source === 'upload') {
        throw new ApiError(400, 'invalid_request', 'Upload jobs are created by uploading a file.');
      }
      await checkJobCredential(pool, params);
      const [job] = await db
        .insert(scrapeJobs)
        .values({
          name,
          source: params.source,
          params,
          everyMinutes: every_minutes,
          nextRunAt: new Date(),
          createdBy: request.userId,
        })
        .returning();
      nudge();
      return reply.status(201).send(toJob(job!, null));
    },
  );

  app.get(
    '/scraping/jobs/:jobId',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'One job with its last 20 runs',
        params: scrapeJobParamsSchema,
        response: { 200: scrapeJobDetailSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => jobDetail(db, request.params.jobId),
  );

  app.patch(
    '/scraping/jobs/:jobId',
    {
      schema: {
        tags,
        security: bearer,
        summary: "Rename a job, change its schedule or its source's parameters (not the kind of source)",
        description:
          'New parameters take effect at the next run; the cursor is kept unless the source changes.',
        params: scrapeJobParamsSchema,
        body: updateScrapeJobBodySchema,
        response: { 200: scrapeJobSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const { jobId } = request.params;
      const { name, params, every_minutes } = request.body;
      if (params) await checkJobCredential(pool, params);
      await db.transaction(async (tx) => {
        const [job] = await tx.select().from(scrapeJobs).where(eq(scrapeJobs.id, jobId)).for('update');
        if (!job) throw jobNotFound();
        const current = job.params as { source: string; upload_id?: string };
        if (params && params.source !== current.source) {
          throw new ApiError(400, 'invalid_request', 'The kind of source cannot change; create another job.');
        }
        if (params?.source === 'upload' && params.upload_id !== current.upload_id) {
          throw new ApiError(400, 'invalid_request', 'An upload job’s file cannot change.');
        }
        // Another instance, hashtag, account, query or feed is another stream: its position starts afresh.
        const sameStream =
          !params ||
          JSON.stringify({ ...params, max_pages: 0 }) ===
            JSON.stringify({ ...(job.params as object), max_pages: 0 });
        const schedule =
          every_minutes === undefined
            ? {}
            : {
                everyMinutes: every_minutes,
                // A new schedule counts from now; removing it leaves no run due (a run under way finishes).
                nextRunAt:
                  every_minutes === null || job.state !== 'active'
                    ? null
                    : (job.nextRunAt ?? new Date(Date.now() + every_minutes * 60_000)),
              };
        await tx
          .update(scrapeJobs)
          .set({
            ...(name !== undefined && { name }),
            ...(params && { params }),
            ...(!sameStream && { cursor: null }),
            ...schedule,
            updatedAt: new Date(),
          })
          .where(eq(scrapeJobs.id, jobId));
      });
      return jobAnswer(jobId);
    },
  );

  app.post(
    '/scraping/jobs/:jobId/run',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Run a job now (409 when a run is under way or paused)',
        params: scrapeJobParamsSchema,
        response: { 200: scrapeJobSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const { jobId } = request.params;
      await db.transaction(async (tx) => {
        const [job] = await tx.select().from(scrapeJobs).where(eq(scrapeJobs.id, jobId)).for('update');
        if (!job) throw jobNotFound();
        if (job.state === 'cancelled') throw jobCancelled();
        if (job.state === 'paused') {
          throw new ApiError(409, 'job_paused', 'This job is paused; resume it first.');
        }
        if (await openRun(tx, jobId)) throw runInProgress();
        await tx
          .update(scrapeJobs)
          .set({ nextRunAt: new Date(), updatedAt: new Date() })
          .where(eq(scrapeJobs.id, jobId));
      });
      nudge();
      return jobAnswer(jobId);
    },
  );

  const setState = (action: 'pause' | 'resume' | 'cancel', summary: string) =>
    app.post(
      `/scraping/jobs/:jobId/${action}`,
      {
        schema: {
          tags,
          security: bearer,
          summary,
          params: scrapeJobParamsSchema,
          response: { 200: scrapeJobSchema, ...errorResponses(400, 403, 404, 409) },
        },
      },
      async (request) => {
        const { jobId } = request.params;
        await db.transaction(async (tx) => {
          const [job] = await tx.select().from(scrapeJobs).where(eq(scrapeJobs.id, jobId)).for('update');
          if (!job) throw jobNotFound();
          if (job.state === 'cancelled') throw jobCancelled();
          const now = new Date();
          if (action === 'pause') {
            await tx
              .update(scrapeJobs)
              .set({ state: 'paused', updatedAt: now })
              .where(eq(scrapeJobs.id, jobId));
            // A run still waiting for a worker pauses at once; a running one after its current page.
            await tx
              .update(scrapeRuns)
              .set({ status: 'paused', queueJobId: null })
              .where(
                and(eq(scrapeRuns.jobId, jobId), eq(scrapeRuns.status, 'queued'), sql`queue_job_id IS NULL`),
              );
          } else if (action === 'resume') {
            await tx
              .update(scrapeJobs)
              .set({
                state: 'active',
                updatedAt: now,
                // A schedule missed while paused runs now, once.
                ...(job.everyMinutes !== null && job.nextRunAt === null && { nextRunAt: now }),
              })
              .where(eq(scrapeJobs.id, jobId));
            // A paused run goes back on the queue and continues from the job's cursor.
            await tx
              .update(scrapeRuns)
              .set({ status: 'queued', queueJobId: null })
              .where(and(eq(scrapeRuns.jobId, jobId), eq(scrapeRuns.status, 'paused')));
          } else {
            await tx
              .update(scrapeJobs)
              .set({ state: 'cancelled', nextRunAt: null, updatedAt: now })
              .where(eq(scrapeJobs.id, jobId));
            // Runs no worker holds end now; a running one stops after its current page.
            await tx
              .update(scrapeRuns)
              .set({ status: 'cancelled', finishedAt: now })
              .where(
                and(
                  eq(scrapeRuns.jobId, jobId),
                  inArray(scrapeRuns.status, ['paused', 'queued']),
                  sql`(status = 'paused' OR queue_job_id IS NULL)`,
                ),
              );
          }
        });
        nudge();
        return jobAnswer(jobId);
      },
    );
  setState('pause', 'Pause a job: no new runs, and a run under way stops after its current page');
  setState('resume', 'Resume a paused job: its paused run continues from its cursor');
  setState('cancel', 'Cancel a job for good: a run under way stops after its current page');

  app.get(
    '/scraping/runs/:runId/log',
    {
      schema: {
        tags,
        security: bearer,
        summary: "A run's log, oldest first (at most 2,000 lines)",
        params: scrapeRunParamsSchema,
        response: { 200: scrapeLogSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => runLog(db, request.params.runId),
  );

  app.get(
    '/scraping/runs/:runId/refused',
    {
      schema: {
        tags,
        security: bearer,
        summary: "A run's refused items with the reason for each (the first 500)",
        params: scrapeRunParamsSchema,
        response: { 200: scrapeRefusalsSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => runRefusals(db, request.params.runId),
  );

  app.post(
    '/scraping/uploads',
    {
      bodyLimit: maxUploadBytes,
      preParsing: refuseDeclaredTooLarge(maxUploadBytes, tooLarge),
      schema: {
        tags,
        security: bearer,
        summary: 'Upload an NDJSON or CSV file in the corpus format; an upload job imports it at once',
        description:
          'The body is the file itself (Content-Type: application/octet-stream). The import is the command-line ' +
          "importer's (docs/corpus-format.md): rows upserted by (platform, external_id), bad rows refused with " +
          'their line and reason.',
        querystring: uploadQuerySchema,
        consumes: ['application/octet-stream'],
        response: { 201: scrapeJobSchema, ...errorResponses(400, 403), 413: errorResponses(400)[400] },
      },
    },
    async (request, reply) => {
      const { format, file_name } = request.query;
      const body = request.body as NodeJS.ReadableStream | undefined;
      if (!body || typeof (body as { pipe?: unknown }).pipe !== 'function') {
        throw new ApiError(400, 'invalid_request', 'Send the file as the body (application/octet-stream).');
      }
      const uploadId = randomUUID();
      let bytes: number;
      try {
        bytes = await saveUpload(uploadDir, uploadId, format, body as never, maxUploadBytes);
      } catch (error) {
        if (error instanceof UploadTooLargeError) throw tooLarge();
        // The client closed the connection mid-upload: nothing failed here, and nobody is left to answer.
        if (clientWentAway(request.raw)) {
          request.log.info('upload aborted by the client');
          return reply.hijack();
        }
        throw error;
      }
      const [job] = await db
        .insert(scrapeJobs)
        .values({
          name: file_name,
          source: 'upload',
          params: { source: 'upload', upload_id: uploadId, format, file_name, bytes },
          nextRunAt: new Date(),
          createdBy: request.userId,
        })
        .returning();
      nudge();
      return reply.status(201).send(toJob(job!, null));
    },
  );

  app.get(
    '/scraping/totals',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Posts in the corpus per platform and UTC day (last `days` days), and per platform in all',
        querystring: corpusTotalsQuerySchema,
        response: { 200: corpusTotalsSchema, ...errorResponses(400, 403) },
      },
    },
    async (request) => corpusTotals(db, request.query.days, app.deps.analytics),
  );
};
