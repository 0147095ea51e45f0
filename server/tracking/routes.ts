// Tracking a saved query (issue 54): every member reads a saved query's tracking with its coverage per source and the
// sources the installation has set up; owners and managers turn tracking on or off and choose its sources (403 for
// the other roles, checked here). Registered under /api by server/routes.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import { assertTrackingFree, trackingUsage } from '@server/billing/limits';
import { bearer, errorResponses } from '@server/openapi';
import { ApiError } from '@server/errors';
import { findSavedQuery } from '@server/saved-queries/store';
import { savedQueryParamsSchema } from '@contract/saved-queries';
import { workspaceParamsSchema } from '@contract/workspaces';
import {
  putTrackingBodySchema,
  trackingGapsQuerySchema,
  trackingGapsResponseSchema,
  trackingResponseSchema,
  trackingSourcesResponseSchema,
} from '@contract/tracking';
import { availableSources } from './sources';
import { readGaps, readTracking, writeTracking } from './store';

const tags = ['tracking'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = {
  from: 'params',
  minimum: 'manager',
  denied: () =>
    new ApiError(403, 'forbidden', 'Only owners and managers can change what a saved query tracks.'),
};

const unknownSources = (keys: string[]) =>
  new ApiError(
    400,
    'unknown_source',
    `${keys.map((k) => `"${k}"`).join(', ')} ${keys.length === 1 ? 'is not a source' : 'are not sources'} ` +
      'set up on this installation.',
  );

export const trackingRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  app.addHook('onRequest', app.requireUser);

  app.get(
    '/workspaces/:id/tracking-sources',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: 'The sources a saved query can be tracked on here, with how far back each reaches',
        description:
          'Those the installation has set up in the internal area: Bluesky and Hacker News always; Reddit, YouTube ' +
          'and X when staff stored credentials for them; the Mastodon instances and feeds collection jobs follow. ' +
          'No credential is ever part of the answer.',
        params: workspaceParamsSchema,
        response: { 200: trackingSourcesResponseSchema, ...errorResponses(404) },
      },
    },
    async () => ({ sources: await availableSources(db) }),
  );

  app.get(
    '/workspaces/:id/saved-queries/:queryId/tracking',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "A saved query's tracking and its coverage per source",
        description:
          'Per source: tracking since, backfilled back to, posts collected today and per day, the last post, and ' +
          'the current gap with its reason and span. Off with no sources when tracking was never set.',
        params: savedQueryParamsSchema,
        response: { 200: trackingResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const query = await findSavedQuery(db, workspace.id, request.params.queryId);
      return {
        ...(await readTracking(db, query.id)),
        limits: await trackingUsage(db, app.billing.catalogue, workspace),
      };
    },
  );

  app.get(
    '/workspaces/:id/saved-queries/:queryId/tracking/gaps',
    {
      config: { workspace: anyMember },
      schema: {
        tags,
        security: bearer,
        summary: "A tracked saved query's collection gaps over a span (what its overview's time axis marks)",
        description:
          "The gaps that overlap [from, to) (Unix seconds): each source's open gap, then those that ended, the " +
          'latest first (at most 200), each with its source, reason, sentence and span. Empty when tracking is off.',
        params: savedQueryParamsSchema,
        querystring: trackingGapsQuerySchema,
        response: { 200: trackingGapsResponseSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const query = await findSavedQuery(db, workspace.id, request.params.queryId);
      const { from, to } = request.query;
      return readGaps(db, query.id, { from: new Date(from * 1000), to: new Date(to * 1000) });
    },
  );

  app.put(
    '/workspaces/:id/saved-queries/:queryId/tracking',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: 'Turn tracking of a saved query on or off and choose its sources (owners and managers)',
        description:
          'Sources are keys from GET /workspaces/:id/tracking-sources (400 unknown_source otherwise); on needs one ' +
          'at least. Editing the query later keeps tracking on: what is collected follows the query text. Turning ' +
          "one more on beyond the plan's tracked queries is 409 tracked_query_limit.",
        params: savedQueryParamsSchema,
        body: putTrackingBodySchema,
        response: { 200: trackingResponseSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const { body } = request;
      return db.transaction(async (tx) => {
        // The workspace row stays locked until commit: concurrent turn-ons count one after another.
        const { workspace } = await lockWorkspaceAccess(tx, config, request);
        const query = await findSavedQuery(tx, workspace.id, request.params.queryId);
        if (body.enabled) {
          const current = await readTracking(tx, query.id);
          await assertTrackingFree(tx, app.billing.catalogue, workspace, current.enabled);
        }
        const known = new Set((await availableSources(tx)).map((source) => source.key));
        const unknown = body.sources.filter((key) => !known.has(key));
        if (unknown.length > 0) throw unknownSources(unknown);
        await writeTracking(tx, query.id, body, request.userId);
        return {
          ...(await readTracking(tx, query.id)),
          limits: await trackingUsage(tx, app.billing.catalogue, workspace),
        };
      });
    },
  );
};
