// The sentiment rescan's progress on the scraping area (staff only: registered inside scrapingRoutes, after its staff
// check): GET /api/scraping/sentiment-rescan, which the internal screen reads every few seconds while it runs.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { sentimentRescanStatusSchema } from '@contract/sentiment-rescan';
import { bearer, errorResponses } from '@server/openapi';
import { rescanStatusReader } from '@server/social/corpus/rescan-status';

export const rescanRoutes: FastifyPluginAsyncZod = async (app) => {
  const reader = rescanStatusReader((app.deps.db as unknown as { $client: pg.Pool }).$client);
  app.get(
    '/scraping/sentiment-rescan',
    {
      schema: {
        tags: ['scraping'],
        security: bearer,
        summary:
          "The sentiment model's version and the corpus's rescan to it: posts rescanned, time left, per model",
        description:
          'A new sentiment model rescans the corpus in the background, in batches each committed with its cursor ' +
          '(resumed after a crash, nothing lost or doubled). `rescan` is null when no post ever needed it; ' +
          '`finished_at` is set once every post is scored by `model`. Staff only (403 staff_only).',
        response: { 200: sentimentRescanStatusSchema, ...errorResponses(403) },
      },
    },
    async () => reader.status(),
  );
};
