// The social API's insights routes; registered under /social by server/routes.ts. One POST per dashboard;
// each takes a saved query or an ad-hoc query, filters and drill-down refinements; and the drill-down lists as
// streamed CSV files. Any member of the workspace (viewer and up) may read them; what each figure counts, and where
// each is read from, is in README.md beside this file.
import { Readable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyReply, FastifyRequest, FastifyTypeProviderDefault } from 'fastify';
import { serializerCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  EXPORT_MAX_ROWS,
  exportPostsBodySchema,
  exportProfilesBodySchema,
  type insightsBodySchema,
} from '@contract/insights';
import { dashboardPath, INSIGHT_DASHBOARDS, type Dashboard } from '@contract/insights-dashboards';
import { errorResponseSchema } from '@contract/errors';
import { logFailure } from '@server/errors';
import { savedQueryVolumeBodySchema, savedQueryVolumeResponseSchema } from '@contract/saved-queries';
import { tagCountsBodySchema, tagCountsResponseSchema } from '@contract/tags';
import { invalidQueryErrorSchema } from '@contract/social-query';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { invalidQueryErrorHandler } from '@server/query/invalid-query';
import { clipToHistory, resolveInsightScope, type InsightScope } from './request';
import { consumeMonthly, historyStart, limitsOf, type MonthlyMetric } from '@server/billing/limits';
import { cursorSeal } from '../cursor-seal';
import { perAccountLimit } from '../rate-limit';
import { clientGone, ClientGoneError, refuseWhenFull } from '../admission';
import { inLane } from '../lane';
import { READ_HEADERS_DOC, sayWhereRead } from '../reads';
import type { Db } from '@server/db/database';
import { dashboardAnswers } from './dashboard-answer';
import { dashboardComputations, extraOf, type DashboardAnswer, type DashboardBody } from './computations';
import { exportPosts, exportProfiles, type CsvExport } from './export';
import { savedQueryVolume } from './saved-query-volume';
import { tagCounts } from './tag-counts';
import { compareRoute } from './compare-routes';
import { explainRoutes } from './explain-routes';

const tags = ['social', 'insights'];
const COMMON =
  "Body: workspace_id, saved_query_id or query, optional filters (they override the saved query's key by key; " +
  'default range: the last 30 days) and refine (drill-down: date bucket, platform, hashtag, mention, term, author, ' +
  'sentiment, language, media, kind, domain, followers, hour of the week, each with exclude). Every answer states ' +
  'time_zone, range and `counted`. 400 for an unknown refinement or value or a query that does not parse; 404 for ' +
  'a workspace the caller is not a member of; 429 rate_limited past SOCIAL_RATE_LIMIT_PER_MINUTE dashboard calls a ' +
  'minute by one account; 503 insights_timeout past 10 s; 503 busy with Retry-After when too many heavy requests ' +
  'are queued. An answer computed at the same corpus version for the same resolved request of the same workspace ' +
  "may be served from the answer cache. Within the workspace's plan: a range reaching further back than the plan's " +
  'history starts at its oldest day (history_clip says so; 409 history_limit when it ends before it), and each call ' +
  "counts against the month's dashboard volume (409 dashboard_volume_limit at the limit). A paged list's " +
  'next_cursor goes back with the same body: a cursor from another list, or sent with another date range than its ' +
  "first page's, is 400 invalid_cursor (the message says which). " +
  READ_HEADERS_DOC +
  ' The answer then has data_as_of too (the same instant); without it the figures are as current as the primary.';

const responses = <T>(ok: T) => ({
  200: ok,
  ...errorResponses(404, 409, 429),
  400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
  503: errorResponseSchema,
});

const EXPORT =
  "Body: the drill-down list's (workspace_id, saved_query_id or query, filters, refine, sort) without cursor and " +
  `limit, and max_rows (1 to ${EXPORT_MAX_ROWS}, the default). The answer is a CSV file (text/csv, UTF-8, an ` +
  'attachment), streamed: its rows, in their order, are those the paged list returns for the same body (read from ' +
  'the analytics store at one version when it can answer: then, sorted by recency, posts of one millisecond stand ' +
  'higher id first). It opens ' +
  'with comment lines (#): what it is, the time zone, the range, the query, the counted sentence and the rows at ' +
  'most; then a header row. Fields are quoted per RFC 4180; text starting with =, +, -, @, a tab or CR gets a ' +
  'leading apostrophe (formula injection). Errors found before the first byte are JSON as for the dashboards (400, ' +
  "404, 429, 503); a failure after it breaks the download off (the file's end is then missing), never a shorter file " +
  'that looks complete. ' +
  READ_HEADERS_DOC;

/** The CSV file; the errors as the dashboards'. */
const exportResponses = {
  200: {
    description: 'The CSV file, streamed',
    content: { 'text/csv': { schema: z.string() } },
  },
  ...errorResponses(404, 409, 429),
  400: z.union([invalidQueryErrorSchema, errorResponseSchema]),
  503: errorResponseSchema,
};

/**
 * The chunks of an export, a failure among them logged as every 500 is and rethrown without its details: the stream
 * is then destroyed, and the client sees a broken download rather than a file cut short.
 */
async function* loggedFailures(request: FastifyRequest, chunks: AsyncGenerator<string>) {
  try {
    yield* chunks;
  } catch (error) {
    const errorId = logFailure(request, error);
    // No `cause`: Fastify logs the error that ends a stream, and the cause's message may hold user input.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`The export failed after its first rows (error ${errorId}).`);
  }
}

/** Any member of the body's workspace_id (viewer and up); 404 for anyone else (server/workspaces/route-access.ts). */
const anyMember: WorkspaceRequirement = { from: 'body', minimum: 'viewer' };

export const insightRoutes: FastifyPluginAsyncZod = async (app) => {
  // The light pool (the primary's) resolves the request (a saved query's look-up) and counts it; the dashboards read
  // the corpus on the analytics pool or a read replica (server/social/reads.ts), in an admission slot, unless the
  // answer cache has the answer (server/social/analytics.ts).
  const { db: lightDb, config } = app.deps;
  const { reads, admission, cache, lane, notes } = app.analytics;
  const cursors = cursorSeal(app.keys.cursors);
  const { catalogue } = app.billing;

  /**
   * The request resolved within the plan: its monthly volume counted (or refused at the limit) and its range clipped
   * to the plan's history.
   */
  async function planScope(
    workspace: Parameters<typeof resolveInsightScope>[1] & { id: string; plan: string },
    body: Parameters<typeof resolveInsightScope>[2],
    metric: MonthlyMetric,
  ): Promise<InsightScope> {
    const context = await resolveInsightScope(lightDb, workspace, body);
    const { limits, planName } = limitsOf(catalogue, workspace.plan);
    const clipped = clipToHistory(context, historyStart(limits), limits.history_days, planName);
    await consumeMonthly(lightDb, { ...workspace, timeZone: context.timeZone }, catalogue, metric);
    return clipped;
  }

  // onRequest: a signed-out caller learns nothing, not even that their body was invalid.
  app.addHook('onRequest', app.requireUser);
  // While every slot and the queue are taken, a signed-in caller's request is refused here, before its body is read
  // or the database asked anything (and before it counts against the rate limit or the month's volume).
  app.addHook('onRequest', refuseWhenFull(admission));
  app.setErrorHandler(invalidQueryErrorHandler);
  // One budget (one store) for every dashboard of this plugin: a page that loads several spends several. Registered
  // after requireUser, so the key is the account.
  await app.register(rateLimit, {
    global: true,
    ...perAccountLimit('insights', config.SOCIAL_RATE_LIMIT_PER_MINUTE).rateLimit,
  });

  const answers = dashboardAnswers({ cache, admission, reads, cursors, notes });

  /**
   * One dashboard of the contract's map: a POST whose workspace the route-access hook checks (before anything of the
   * body is read), whose request is then resolved once (resolveInsightScope: the saved or ad-hoc query, filters,
   * range, refinements, the workspace's zone), and whose answer `answer` computes unless the answer cache has it
   * (dashboard-answer.ts).
   */
  function dashboard<D extends Dashboard>(
    name: D,
    summary: string,
    answer: (db: Db, context: InsightScope, body: DashboardBody<D>) => Promise<DashboardAnswer<D>>,
  ) {
    const url = `/${dashboardPath(name)}`;
    const { body, response } = INSIGHT_DASHBOARDS[name];
    // The route's own serializer for its 200 (the schema's encoding, then JSON.stringify), run once per computed
    // answer instead of once per request.
    const serialize = serializerCompiler({ schema: response, method: 'POST', url, httpStatus: '200' });
    // The schema validates the body and documents the answer as for any route; the body's type comes from the map,
    // which Fastify's inference cannot follow through a generic schema.
    app.withTypeProvider<FastifyTypeProviderDefault>().post(
      url,
      {
        config: { workspace: anyMember },
        schema: { tags, security: bearer, summary, description: COMMON, body, response: responses(response) },
        onRequest: inLane(lane),
      },
      async (request, reply) => {
        const { workspace } = workspaceAccessOf(request);
        const values = answers.openCursor(request.body as DashboardBody<D>, workspace.id);
        const context = await planScope(workspace, values, 'dashboard_requests_per_month');
        return answers.send(request, reply, {
          endpoint: url,
          workspaceId: workspace.id,
          context,
          extra: extraOf(values),
          compute: (db) => answer(db, context, values),
          serialize,
        });
      },
    );
  }

  /**
   * One CSV export: a POST checked and resolved as a dashboard's, whose file `open` gives once it has read the first
   * page (so errors until then are the usual JSON answers), streamed page by page; `signal` aborts when the client
   * goes away, which stops the paging (Fastify destroys the stream too).
   */
  function csvExport<B extends z.ZodMiniType<z.output<typeof insightsBodySchema>>>(
    url: string,
    summary: string,
    body: B,
    open: (
      db: Db,
      context: InsightScope,
      body: z.output<B>,
      workspace: { id: string; name: string },
      signal: AbortSignal,
    ) => Promise<CsvExport>,
  ) {
    app.withTypeProvider<FastifyTypeProviderDefault>().post(
      url,
      {
        config: { workspace: anyMember },
        schema: { tags, security: bearer, summary, description: EXPORT, body, response: exportResponses },
      },
      async (request, reply) => {
        const values = request.body as z.output<B>;
        const { workspace } = workspaceAccessOf(request);
        const gone = new AbortController();
        reply.raw.on('close', () => gone.abort(new ClientGoneError()));
        const context = await planScope(workspace, values, 'exports_per_month');
        // The slot is held until the file is sent (or the download broken off): each page is a statement.
        const release = await admission.acquire(gone.signal);
        let file: CsvExport;
        try {
          // Every page is read where the first was (a replica's or the primary's pool).
          const read = await reads.read((db) => open(db, context, values, workspace, gone.signal));
          sayWhereRead(reads, reply, read);
          file = read.value;
        } catch (error) {
          release();
          throw error;
        }
        const stream = Readable.from(loggedFailures(request, file.chunks), { objectMode: false });
        stream.once('close', release);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .send(stream);
      },
    );
  }

  const computations = dashboardComputations(app);
  dashboard(
    'overview',
    'Overview: mentions over time with spikes, totals against the previous period, sentiment, platforms, top posts and people',
    computations.overview,
  );
  dashboard(
    'posts',
    'Posts: matching posts by engagement, recency or overperformance, one keyset page at a time',
    computations.posts,
  );
  dashboard('people', 'People: top authors by mentions, followers and engagement', computations.people);
  dashboard(
    'performance',
    'Performance: engagement by platform, media and kind; engagement rate; best time to post',
    computations.performance,
  );
  dashboard(
    'conversation',
    'Conversation: top hashtags, mentions, domains and words with their sentiment; emerging words',
    computations.conversation,
  );
  dashboard(
    'filtered-posts',
    'Filtered posts: the drill-down list of any chart (newest first by default), one keyset page at a time',
    computations['filtered-posts'],
  );
  dashboard(
    'filtered-profiles',
    'Filtered profiles: the authors of the drill-down, by mentions, followers or engagement, one keyset page at a time',
    computations['filtered-profiles'],
  );

  // Compare: 2 to 5 saved queries, or tags within one, side by side (compare-routes.ts).
  compareRoute(app, { lightDb, catalogue, answers, lane, workspace: anyMember });

  explainRoutes(app, { planScope, answers, lane, workspace: anyMember });

  csvExport(
    '/insights/export/posts',
    'Export the filtered posts as CSV (the filtered-posts list, every page), streamed',
    exportPostsBodySchema,
    (db, context, body, workspace, signal) =>
      exportPosts(db, context, body, workspace, signal, app.deps.analytics),
  );
  csvExport(
    '/insights/export/profiles',
    'Export the filtered profiles as CSV (the filtered-profiles list, every page), streamed',
    exportProfilesBodySchema,
    (db, context, body, workspace, signal) =>
      exportProfiles(db, context, body, workspace, signal, app.deps.analytics),
  );

  /** A workspace's figures read outside the answer cache: in an admission slot, where the dashboards read. */
  async function workspaceRead<T>(reply: FastifyReply, read: (db: Db) => Promise<T>) {
    const answer = await admission.run(() => reads.read(read), clientGone(reply.raw));
    sayWhereRead(reads, reply, answer);
    return answer;
  }

  // The saved queries list's sparklines: here, under the dashboards' rate limit (one call per list, whatever its
  // length), and counted by the dashboards' sources (saved-query-volume.ts).
  app.post(
    '/saved-queries/volume',
    {
      config: { workspace: anyMember },
      schema: {
        tags: ['social', 'saved queries'],
        security: bearer,
        summary: "Every saved query's mentions per day over the last 7 whole days and today",
        description:
          "Days of the workspace's time zone (time_zone, days: oldest first, today last and counted up to now). " +
          'Each saved query is counted with its text, platforms and languages as the overview dashboard counts ' +
          'its mentions; counts is null for a stored query that no longer parses. 404 for a workspace the caller ' +
          'is not a member of; 429 rate_limited past SOCIAL_RATE_LIMIT_PER_MINUTE dashboard calls a minute. ' +
          READ_HEADERS_DOC,
        body: savedQueryVolumeBodySchema,
        response: {
          200: savedQueryVolumeResponseSchema,
          ...errorResponses(400, 404, 429),
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      // The saved queries are listed on the primary (one saved a moment ago is listed); their posts are counted
      // where the dashboards read.
      const { workspace } = workspaceAccessOf(request);
      const read = await workspaceRead(reply, (db) =>
        savedQueryVolume(db, workspace, { savedQueriesDb: lightDb, analytics: app.deps.analytics }),
      );
      return read.value;
    },
  );

  // Settings › Categories' counts: a figure, so here (the store's, under the dashboards' rate limit), not with the
  // categories themselves (the record, /api/workspaces/{id}/tag-categories).
  app.post(
    '/insights/tag-counts',
    {
      config: { workspace: anyMember },
      schema: {
        tags: ['social', 'tags'],
        security: bearer,
        summary: 'How many posts carry each tag of the workspace now',
        description:
          'Every tag of the workspace (tags: tag_id and posts, 0 for a tag no post carries), counted by the ' +
          'analytics store as the dashboards broken down by a category count them: set by a person, or by a rule and ' +
          "not removed by a person; applying: some rule is still tagging (its tag's count will grow). Not clipped " +
          "to a date range or the plan's history, and not counted against the month's dashboard volume. While a " +
          "rule's rows are still reaching the store, data_as_of says up to when the counts are complete. 404 for a " +
          'workspace the caller is not a member of; 429 as the dashboards; 503 while the analytics store cannot ' +
          'answer. ' +
          READ_HEADERS_DOC,
        body: tagCountsBodySchema,
        response: {
          200: tagCountsResponseSchema,
          ...errorResponses(400, 404, 429),
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const read = await workspaceRead(reply, (db) => tagCounts(db, workspace.id, app.deps.analytics));
      return read.asOf ? { ...read.value, data_as_of: read.asOf.toISOString() } : read.value;
    },
  );
};
