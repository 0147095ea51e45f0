// The social API's discover routes; registered under /social by server/routes.ts. An ad-hoc search: any
// member of the workspace may run it; "Save as query" posts the same query and filters to the internal API's
// POST /api/workspaces/{id}/saved-queries.
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { discoverBodySchema, discoverResponseSchema, type DiscoverResponse } from '@contract/discover';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { errorResponseSchema } from '@contract/errors';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf } from '@server/workspaces/route-access';
import { loadCorrections } from '../corrections';
import { resolveScope } from '../scope';
import { expandLists, printQuery } from '@server/query/index';
import { listsFor } from '@server/lists/store';
import { invalidQueryErrorHandler, parseOrThrow } from '@server/query/invalid-query';
import { cursorSeal } from '../cursor-seal';
import { namedRange } from '../cursor-range';
import { decodeCursor, encodeCursor, searchFingerprint } from './cursor';
import { discoverPosts } from './search';
import { countedSentence } from './counted';
import { usableTimeZone } from '@contract/zoned-time';
import { perAccountLimit } from '../rate-limit';
import { clientGone } from '../admission';
import { READ_HEADERS_DOC, sayWhereRead } from '../reads';

const tags = ['social'];

export const discoverRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config, db: lightDb } = app.deps;
  // A search is a heavy request: the analytics pool or a read replica (server/social/reads.ts), in an admission slot
  // (server/social/analytics.ts).
  const { reads, admission } = app.analytics;
  // Cursors are sealed for the client and opened here (server/social/cursor-seal.ts), then checked inside.
  const cursors = cursorSeal(app.keys.cursors);

  // onRequest: a signed-out caller learns nothing, not even that their body was invalid.
  app.addHook('onRequest', app.requireUser);
  app.setErrorHandler(invalidQueryErrorHandler);
  await app.register(rateLimit, { global: false });

  app.post(
    '/discover',
    {
      config: {
        ...perAccountLimit('discover', config.SOCIAL_RATE_LIMIT_PER_MINUTE),
        // Any member of the body's workspace_id, checked before the query is read; 404 for anyone else.
        workspace: { from: 'body', minimum: 'viewer' },
      },
      schema: {
        tags,
        security: bearer,
        summary:
          'Search posts by query and filters, newest or most engaging first, one page at a time; to save the ' +
          'search, post the same query and filters to POST /api/workspaces/{id}/saved-queries',
        description:
          'Keyset pagination: pass next_cursor back with the same query, filters and sort (a cursor from another ' +
          'search, or altered, is 400 invalid_cursor; so is one sent with another date range than its first ' +
          "page's, with a message that says so). Every page searches the date range of the first (default: " +
          'the last 30 days). The first page also lists the profiles with the most matching posts. A query that ' +
          'does not parse is 400 invalid_query with each error at a 1-based column; a search that runs longer ' +
          'than 5 s is cancelled (503 search_timeout); 503 busy with Retry-After when too many heavy requests are ' +
          'queued; 503 figures_preparing with Retry-After while the analytics store prepares the figures, ' +
          'figures_unavailable when it cannot answer. ' +
          READ_HEADERS_DOC,
        body: discoverBodySchema,
        response: {
          200: discoverResponseSchema,
          ...errorResponses(404, 429),
          400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply): Promise<DiscoverResponse> => {
      const { query, filters, sort, limit } = request.body;
      const { workspace } = workspaceAccessOf(request);
      const lists = await listsFor(lightDb, workspace.id, query);
      const tree = parseOrThrow(query, lists);
      const ast = expandLists(tree, lists);
      const normalized = printQuery(tree);
      const fingerprint = searchFingerprint(normalized, filters, sort);
      const named = namedRange(filters);
      const cursor = request.body.cursor
        ? decodeCursor(cursors.open(request.body.cursor, workspace.id), sort, fingerprint, named)
        : null;
      // Later pages search the first page's range, so a default "last 30 days" does not drift between pages.
      const scope = resolveScope(ast, cursor ? { ...filters, from: cursor.from, to: cursor.to } : filters);
      const timeZone = usableTimeZone(workspace.timeZone);
      // The search as a dashboard's scope without refinements: what the analytics store's statements read.
      const context = {
        scope,
        namedRange: named,
        normalized,
        savedQueryName: null,
        refines: [],
        timeZone,
        corrections: await loadCorrections(lightDb, workspace.id),
        tagsOf: workspace.id,
      };
      const read = await admission.run(
        // The store is read as it is now: it is started after the app is built (server/main.ts).
        () => reads.read((db) => discoverPosts(db, context, { sort, cursor, limit }, app.deps.analytics)),
        clientGone(reply.raw),
      );
      sayWhereRead(reads, reply, read);
      const result = read.value;
      const range = { from: scope.from.toISOString(), to: scope.to.toISOString() };
      return {
        posts: result.posts,
        next_cursor: result.next
          ? cursors.seal(
              encodeCursor({ v: 1, s: sort, ...result.next, ...range, r: named, h: fingerprint }),
              workspace.id,
            )
          : null,
        profiles: result.profiles,
        time_zone: timeZone,
        range,
        counted: countedSentence(scope, normalized, sort, timeZone),
      };
    },
  );
};
