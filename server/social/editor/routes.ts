// The social API's query routes; registered under /social by server/routes.ts.
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  validateQueryBodySchema,
  validateQueryResponseSchema,
  type ValidateQueryResponse,
} from '@contract/social-query';
import { errorResponseSchema } from '@contract/errors';
import { bearer, errorResponses } from '@server/openapi';
import { expandLists, parseQuery, printQuery } from '@server/query/index';
import { listsFor } from '@server/lists/store';
import { queryWarnings } from '@server/query/warnings';
import { FIGURES_PREPARING, FIGURES_UNAVAILABLE } from '@contract/figures';
import { ApiError } from '@server/errors';
import { countQueryMatches } from './count';

import { perAccountLimit } from '../rate-limit';
import { clientGone } from '../admission';
import { READ_HEADERS_DOC, sayWhereRead } from '../reads';
import { resolveScope } from '../scope';

const tags = ['social'];
/** The answers of a count while no store can count: the syntax is still answered. */
const FIGURE_WAITS = new Set<string>([FIGURES_PREPARING, FIGURES_UNAVAILABLE]);
/** Per account: validate runs while a person types (the SPA debounces), so this is generous but bounded. */
export const VALIDATE_PER_MINUTE = 120;

export const queryRoutes: FastifyPluginAsyncZod = async (app) => {
  // The count is a heavy request: the analytics pool or a read replica (server/social/reads.ts), in an admission slot
  // (server/social/analytics.ts).
  const { reads, admission } = app.analytics;

  await app.register(rateLimit, { global: false });
  // onRequest: a signed-out caller learns nothing, not even that their body was invalid.
  app.addHook('onRequest', app.requireUser);

  app.post(
    '/query/validate',
    {
      config: {
        ...perAccountLimit('query-validate', VALIDATE_PER_MINUTE),
        // Any member of the body's workspace_id; 404 for anyone else.
        workspace: { from: 'body', minimum: 'viewer' },
      },
      schema: {
        tags,
        security: bearer,
        summary: 'Check a query and count the posts it matches',
        description:
          'A query that cannot be parsed is a normal answer (200, valid: false) with each error at a 1-based ' +
          'column; otherwise the canonical text of the query and how many posts match it (bounded in cost): in the ' +
          'whole corpus, or within `filters` (platforms, languages, date range; 30 days unless given) when sent, ' +
          'and `warnings` about what may not be meant (never a refusal), each with its one-click fix. ' +
          '503 busy with Retry-After when too many heavy requests are queued (server/social/admission.ts); 503 ' +
          'figures_preparing with Retry-After while the analytics store prepares the figures, figures_unavailable ' +
          'when it cannot count. ' +
          READ_HEADERS_DOC,
        body: validateQueryBodySchema,
        response: {
          200: validateQueryResponseSchema,
          ...errorResponses(400, 404, 429),
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply): Promise<ValidateQueryResponse> => {
      // The workspace's lists as they are now: a reference to none, or to one of another kind, is an error here.
      const lists = await listsFor(app.deps.db, request.body.workspace_id, request.body.query);
      const parsed = parseQuery(request.body.query, lists);
      if (!parsed.ok) return { valid: false, errors: parsed.errors };
      const { filters } = request.body;
      const ast = expandLists(parsed.ast, lists);
      // With filters, the count is discover's: the same scope (range, platforms, languages) as its list; without,
      // the whole corpus.
      const scope = filters ? resolveScope(ast, filters) : { query: ast, platforms: [], languages: [] };
      const normalized = printQuery(parsed.ast);
      const warned = queryWarnings(request.body.query, parsed.ast);
      const warnings = warned.length ? { warnings: warned } : {};
      let read;
      try {
        read = await admission.run(
          // The store is read as it is now: it is started after the app is built (server/main.ts).
          () => reads.read((db) => countQueryMatches(db, scope, app.deps.analytics)),
          clientGone(reply.raw),
        );
      } catch (error) {
        // No store to count with: the syntax is still answered (the editor and discover follow what is typed).
        if (!(error instanceof ApiError) || !FIGURE_WAITS.has(error.code)) throw error;
        const unavailable = { error: error.code, message: error.message };
        return {
          valid: true,
          normalized,
          matches: null,
          matches_capped: false,
          matches_unavailable: unavailable,
          ...warnings,
        };
      }
      sayWhereRead(reads, reply, read);
      const count = read.value;
      return { valid: true, normalized, matches: count.matches, matches_capped: count.capped, ...warnings };
    },
  );
};
