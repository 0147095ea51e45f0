// GET /api/health: 200 when the database answers, 503 while it does not (restarting, or down), with which; beside it,
// what the analytics store is doing (rebuilding: how far, and how long its phase still needs). No sign-in: it says
// nothing but that, and a load balancer or a process supervisor calls it.
import { sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { healthResponseSchema, type HealthResponse } from '@contract/health';
import type { DatabaseStatus } from '@server/db/supervisor';

/** How long the database may take to answer `SELECT 1` before it counts as down. */
const PROBE_TIMEOUT_MS = 3_000;
/** What a client is told to wait before asking again while the database is away. */
const RETRY_AFTER_SECONDS = 5;

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, databaseStatus, analytics } = app.deps;

  /** The analytics service's state as the API says it (none when the server runs no store). */
  function figures(): HealthResponse['figures'] {
    if (!analytics) return undefined;
    const { phase, ready, progress } = analytics.state();
    if (!progress) return { state: phase, ready };
    const { etaSeconds, ...rest } = progress;
    return { state: phase, ready, progress: { ...rest, eta_seconds: etaSeconds } };
  }

  async function probe(): Promise<DatabaseStatus> {
    const known = databaseStatus?.() ?? { state: 'up' };
    if (known.state !== 'up') return known;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        db.execute(sql`SELECT 1`),
        new Promise((_, fail) => {
          timer = setTimeout(() => fail(new Error('timeout')), PROBE_TIMEOUT_MS);
        }),
      ]);
      return known;
    } catch {
      // It died a moment ago (the supervisor has not heard yet) or, external, it does not answer.
      return databaseStatus?.().state === 'restarting' ? databaseStatus() : { state: 'down' };
    } finally {
      clearTimeout(timer);
    }
  }

  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Whether the server and its database answer',
        description:
          '200 with database.state "up"; 503 with "restarting" while the embedded PostgreSQL is started again after ' +
          'it died, or "down" when the database does not answer (the server then exits if it gave up restarting it). ' +
          '`figures` says what the analytics store is doing (absent without one): while it rebuilds (a first start, ' +
          'or a store found missing or damaged, which the server rebuilds by itself) the phase, how far, and the ' +
          'seconds the phase still needs at its measured rate. It does not change the status code.',
        response: { 200: healthResponseSchema, 503: healthResponseSchema },
      },
    },
    async (_request, reply) => {
      const database = await probe();
      const store = figures();
      const body: HealthResponse = {
        status: database.state === 'up' ? 'ok' : 'unavailable',
        database,
        ...(store && { figures: store }),
      };
      if (database.state === 'up') return body;
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.status(503).send(body);
    },
  );
};
