// A shared view, opened without signing in (social API, under /social; docs/sharing.md). Every call's body is the
// link's token and nothing else: the dashboard, its query, range, filters and refinements are the link's, so no request
// made with a token can read anything but that view. The answer is the dashboard's own (its route's computation, the
// answer cache, admission, the plan's history and monthly volume of the link's workspace), and each call is limited
// per address. Answers say `X-Robots-Tag: noindex`.
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { INSIGHT_DASHBOARDS, type Dashboard } from '@contract/insights-dashboards';
import { compareResponseSchema } from '@contract/insights-compare';
import { errorResponseSchema } from '@contract/errors';
import {
  sharedTokenBodySchema,
  sharedViewMetaSchema,
  type CompareView,
  type SharedDashboard,
} from '@contract/share-links';
import { consumeMonthly, historyStart, limitsOf } from '@server/billing/limits';
import { ApiError } from '@server/errors';
import { refuseWhenFull } from '@server/social/admission';
import { cursorSeal } from '@server/social/cursor-seal';
import { dashboardAnswers } from '@server/social/insights/dashboard-answer';
import { dashboardComputations, extraOf, type DashboardBody } from '@server/social/insights/computations';
import { loadCorrections, type Corrections } from '@server/social/corrections';
import { compare, compareKey, resolveCompare } from '@server/social/insights/compare';
import { clipToHistory, resolveInsightScope } from '@server/social/insights/request';
import { checkSharedView, noteOpened, openShareLink } from './links';

const tags = ['sharing'];
const cannotBeShown = () => new ApiError(404, 'share_link_not_found', 'This link cannot be shown any more.');

/**
 * The workspace's sentiment corrections as a shared answer counts and shows them: each post's corrected label, never
 * who corrected it (a shared answer names no member).
 */
function namelessCorrections(corrections: Corrections): Corrections {
  if (!corrections.byId.size) return corrections;
  const byId = new Map([...corrections.byId].map(([id, made]) => [id, { ...made, correctedBy: null }]));
  return { ...corrections, byId };
}
/** Calls a minute from one address: a page opens with two. */
export const SHARED_RATE_LIMIT_PER_MINUTE = 60;

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
  410: errorResponseSchema,
  429: errorResponseSchema,
  503: errorResponseSchema,
};

export const sharedViewRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db: lightDb } = app.deps;
  const { reads, admission, cache, notes } = app.analytics;
  const { catalogue } = app.billing;
  const answers = dashboardAnswers({ cache, admission, reads, cursors: cursorSeal(app.keys.cursors), notes });
  const computations = dashboardComputations(app);
  const serializers = Object.fromEntries(
    (Object.keys(INSIGHT_DASHBOARDS) as Dashboard[]).map((name) => [
      name,
      serializerCompiler({
        schema: INSIGHT_DASHBOARDS[name].response,
        method: 'POST',
        url: '/shared/answer',
        httpStatus: '200',
      }),
    ]),
  ) as Record<Dashboard, (answer: unknown) => string>;
  const serializeCompare = serializerCompiler({
    schema: compareResponseSchema,
    method: 'POST',
    url: '/shared/answer',
    httpStatus: '200',
  }) as (answer: unknown) => string;

  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-robots-tag', 'noindex, nofollow');
    reply.header('cache-control', 'no-store');
  });
  await app.register(rateLimit, {
    global: true,
    max: SHARED_RATE_LIMIT_PER_MINUTE,
    timeWindow: '1 minute',
    keyGenerator: (request) => `shared|${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new ApiError(context.statusCode, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  });

  app.post(
    '/shared/view',
    {
      schema: {
        tags,
        summary: 'What a share link shows: its dashboard, workspace, title, query and time zone (no sign-in)',
        description:
          'Body: { token } from the link (its fragment). Counts the opening. 404 share_link_not_found, 410 ' +
          "share_link_revoked or share_link_expired, 403 plan_expired when the workspace's plan has expired: " +
          `no data in any of them. At most ${SHARED_RATE_LIMIT_PER_MINUTE} calls a minute from one address.`,
        body: sharedTokenBodySchema,
        response: { 200: sharedViewMetaSchema, ...errors },
      },
    },
    async (request) => {
      const opened = await openShareLink(lightDb, request.body.token);
      const { link, view, workspace } = opened;
      const dashboard = link.dashboard as SharedDashboard;
      // The title and the query as understood: no figures, so no corrections to read.
      const checked = await checkSharedView(lightDb, workspace, dashboard, view).catch((error: unknown) => {
        if (error instanceof ApiError && error.statusCode === 400) throw cannotBeShown();
        throw error;
      });
      await noteOpened(lightDb, link.id);
      return {
        dashboard,
        workspace_name: workspace.name,
        title: checked.title,
        query: checked.query,
        time_zone: checked.timeZone,
        rolling: link.rolling,
        expires_at: link.expiresAt.toISOString(),
      };
    },
  );

  app.post(
    '/shared/answer',
    {
      schema: {
        tags,
        summary: "A share link's dashboard answer (no sign-in)",
        description:
          "Body: { token }. The answer of the link's dashboard (or Compare's) for the link's view (its own response; a " +
          "list's first page), counted against the workspace's monthly dashboard volume and within its plan's " +
          "history, as a member's call would be. It names no member: a post's sentiment correction is there, " +
          'its corrected_by null. Errors as /shared/view, and 409 dashboard_volume_limit, 503 busy.',
        body: sharedTokenBodySchema,
        response: { 200: z.unknown(), ...errors },
      },
      onRequest: refuseWhenFull(admission),
    },
    async (request, reply) => {
      const { link, view, workspace } = await openShareLink(lightDb, request.body.token);
      const { limits, planName } = limitsOf(catalogue, workspace.plan);
      if (link.dashboard === 'compare') {
        // Compare's answer as a member's call makes it (server/social/insights/routes.ts): its queries resolved
        // alike, one call of the month's volume; it lists authors, never a post's corrector.
        const body = { ...(view as CompareView), workspace_id: workspace.id };
        const contexts = await resolveCompare(lightDb, workspace, body, {
          start: historyStart(limits),
          historyDays: limits.history_days,
          planName,
        }).catch((error: unknown) => {
          if (error instanceof ApiError && error.statusCode === 400) throw cannotBeShown();
          throw error;
        });
        const context = contexts[0]!;
        await consumeMonthly(lightDb, workspace, catalogue, 'dashboard_requests_per_month');
        return answers.send(request, reply, {
          endpoint: '/shared/compare',
          workspaceId: workspace.id,
          context,
          extra: compareKey(contexts),
          compute: (db) => compare(db, contexts, app.deps.analytics),
          serialize: serializeCompare,
        });
      }
      const dashboard = link.dashboard as Dashboard;
      const parsed = INSIGHT_DASHBOARDS[dashboard].body.safeParse({ ...view, workspace_id: workspace.id });
      if (!parsed.success) throw cannotBeShown();
      const body = parsed.data as DashboardBody<Dashboard>;
      const corrections = namelessCorrections(await loadCorrections(lightDb, workspace.id));
      const context = clipToHistory(
        // Its posts show no tags: a tag is the team's own word for a post.
        {
          ...(await resolveInsightScope(lightDb, workspace, body, new Date(), corrections)),
          tagsOf: undefined,
        },
        historyStart(limits),
        limits.history_days,
        planName,
      );
      await consumeMonthly(lightDb, workspace, catalogue, 'dashboard_requests_per_month');
      const compute = computations[dashboard] as (
        ...args: Parameters<(typeof computations)['overview']>
      ) => Promise<unknown>;
      return answers.send(request, reply, {
        // Kept apart from the members' answers: a shared list's answer has no cursor.
        endpoint: `/shared/${dashboard}`,
        workspaceId: workspace.id,
        context,
        extra: extraOf(body),
        compute: (db) => compute(db, context, body as never) as Promise<{ next_cursor?: string | null }>,
        serialize: (answer) => {
          // A shared list shows its first page only: no cursor to go further.
          const shown = 'next_cursor' in answer ? { ...answer, next_cursor: null } : answer;
          return serializers[dashboard](shown);
        },
      });
    },
  );
};
