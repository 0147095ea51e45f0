// The caller's notifications (internal API, under /api; docs/alerts.md): a notification belongs to one person, so the
// list, the unread count and marking read touch only the caller's, and only in workspaces they are still a member of.
import { and, desc, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  markNotificationsBodySchema,
  notificationListQuerySchema,
  notificationListResponseSchema,
  NOTIFICATIONS_PAGE,
  unreadCountResponseSchema,
  type AppNotification,
} from '@contract/alerts';
import { alertEvents, alertRules, notifications } from '@server/db/alerts-schema';
import { workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { bearer, errorResponses } from '@server/openapi';
import { toUnixSeconds } from '@server/workspaces/access';
import { eventPath } from './store';

const tags = ['alerts'];

export const notificationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app.deps;
  app.addHook('onRequest', app.requireUser);

  const unreadOf = async (userId: string) =>
    (
      await db
        .select({ n: sql<number>`count(*)::int` })
        .from(notifications)
        .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)))
    )[0]!.n;

  app.get(
    '/notifications',
    {
      schema: {
        tags,
        security: bearer,
        summary: "The caller's notifications, newest first, a page at a time, with the unread count",
        description:
          `${NOTIFICATIONS_PAGE} a page; pass next_before as before for the next. unread=true lists only unread ` +
          "ones. Only workspaces the caller is still a member of; each opens its rule's dashboard at the window " +
          'that fired (path).',
        querystring: notificationListQuerySchema,
        response: { 200: notificationListResponseSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const userId = request.userId!;
      const { before, unread } = request.query;
      const rows = await db
        .select({
          id: notifications.id,
          readAt: notifications.readAt,
          createdAt: notifications.createdAt,
          workspaceId: notifications.workspaceId,
          workspaceName: workspaces.name,
          timeZone: workspaces.timeZone,
          event: alertEvents,
          rule: { id: alertRules.id, kind: alertRules.kind, period: alertRules.period },
          savedQuery: { id: savedQueries.id, name: savedQueries.name },
        })
        .from(notifications)
        .innerJoin(alertEvents, eq(alertEvents.id, notifications.eventId))
        .innerJoin(alertRules, eq(alertRules.id, alertEvents.ruleId))
        .innerJoin(savedQueries, eq(savedQueries.id, alertRules.savedQueryId))
        .innerJoin(workspaces, eq(workspaces.id, notifications.workspaceId))
        .where(
          and(
            eq(notifications.userId, userId),
            before ? lt(notifications.id, before) : undefined,
            unread === 'true' ? isNull(notifications.readAt) : undefined,
            sql`EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = ${notifications.workspaceId}
              AND m.user_id = ${userId})`,
          ),
        )
        .orderBy(desc(notifications.id))
        .limit(NOTIFICATIONS_PAGE + 1);
      const page = rows.slice(0, NOTIFICATIONS_PAGE);
      return {
        notifications: page.map((row): AppNotification => ({
          id: row.id,
          workspace_id: row.workspaceId,
          workspace_name: row.workspaceName,
          rule_id: row.rule.id,
          saved_query_id: row.savedQuery.id,
          saved_query_name: row.savedQuery.name,
          kind: row.rule.kind,
          period: row.rule.period,
          title: row.event.title,
          message: row.event.message,
          window: { from: row.event.windowStart.toISOString(), to: row.event.windowEnd.toISOString() },
          time_zone: row.timeZone,
          path: eventPath(
            {
              workspaceId: row.workspaceId,
              savedQueryId: row.savedQuery.id,
              kind: row.rule.kind,
              period: row.rule.period,
            },
            row.event,
          ),
          created_at: toUnixSeconds(row.createdAt),
          read: row.readAt !== null,
        })),
        unread: await unreadOf(userId),
        next_before: rows.length > NOTIFICATIONS_PAGE ? page.at(-1)!.id : null,
      };
    },
  );

  app.get(
    '/notifications/unread-count',
    {
      schema: {
        tags,
        security: bearer,
        summary: "How many of the caller's notifications are unread (the bell's count)",
        response: { 200: unreadCountResponseSchema, ...errorResponses() },
      },
    },
    async (request) => ({ unread: await unreadOf(request.userId!) }),
  );

  app.post(
    '/notifications/read',
    {
      schema: {
        tags,
        security: bearer,
        summary: "Mark some (ids) or all of the caller's notifications read",
        description: "Ids that are not the caller's are ignored. Answers the unread count after.",
        body: markNotificationsBodySchema,
        response: { 200: unreadCountResponseSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const userId = request.userId!;
      const body = request.body;
      await db
        .update(notifications)
        .set({ readAt: sql`now()` })
        .where(
          and(
            eq(notifications.userId, userId),
            isNull(notifications.readAt),
            'ids' in body ? inArray(notifications.id, body.ids) : undefined,
          ),
        );
      return { unread: await unreadOf(userId) };
    },
  );
};
