// Alert rules (internal API, under /api; docs/alerts.md). Every member reads a workspace's rules and mutes them for
// themselves; owners and managers make, change and delete them (checked here on the server). The unsubscribe link of
// an alert e-mail posts its token here without a session. A rule's delivery log and its test: delivery-routes.ts;
// the caller's notifications: notification-routes.ts.
import rateLimit from '@fastify/rate-limit';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ALERT_RULES_LIMIT,
  alertRuleListResponseSchema,
  alertRuleParamsSchema,
  alertRuleResponseSchema,
  createAlertRuleBodySchema,
  unsubscribeBodySchema,
  updateAlertRuleBodySchema,
} from '@contract/alerts';
import { errorResponseSchema } from '@contract/errors';
import { workspaceParamsSchema } from '@contract/workspaces';
import { alertMutes, alertRules } from '@server/db/alerts-schema';
import { workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { atLeast } from '@server/workspaces/permissions';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import {
  alertRuleNotFound,
  alertRulesDenied,
  checkRule,
  findAlertRule,
  newWebhookSecret,
  toAlertRuleResponse,
} from './store';
import { lastDeliveries } from './delivery-log';
import { readUnsubscribeToken } from './unsubscribe';
import { deliveryRoutes } from './delivery-routes';

const tags = ['alerts'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: alertRulesDenied };
const noContent = z.null();

export const alertRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const urlRules = { allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS };
  /** A rule's last delivery attempt, for the responses that answer one rule. */
  const lastOf = async (ruleId: string) => (await lastDeliveries(db, [ruleId])).get(ruleId) ?? null;
  // Scoped to this plugin and opted into per route: only the signed-out unsubscribe is limited (per address).
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ApiError(context.statusCode, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  });

  /** The caller's mutes among these rules. */
  const mutedBy = async (userId: string, ruleIds: string[]) =>
    new Set(
      ruleIds.length
        ? (
            await db
              .select({ ruleId: alertMutes.ruleId })
              .from(alertMutes)
              .where(and(eq(alertMutes.userId, userId), inArray(alertMutes.ruleId, ruleIds)))
          ).map((row) => row.ruleId)
        : [],
    );

  // The unsubscribe link works signed out: its token is the whole authority (it mutes one rule for one person).
  app.post(
    '/alerts/unsubscribe',
    {
      schema: {
        tags,
        summary: "Mute the alert rule an e-mail's unsubscribe link names, for the person it was sent to",
        description:
          'The token comes from the link in the e-mail (its fragment, never sent to a server by the browser); it ' +
          'mutes that rule for that person, nothing else. 400 invalid_token for a token this server did not sign; ' +
          '404 when the rule is gone.',
        body: unsubscribeBodySchema,
        response: {
          200: z.object({
            rule_summary: z.string(),
            saved_query_name: z.string(),
            workspace_name: z.string(),
          }),
          400: errorResponseSchema,
          404: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request) => {
      const named = readUnsubscribeToken(app.keys.alertUnsubscribe, request.body.token);
      if (!named) throw new ApiError(400, 'invalid_token', 'This unsubscribe link is not valid.');
      const [rule] = await db
        .select({ row: alertRules, queryName: savedQueries.name, workspaceName: workspaces.name })
        .from(alertRules)
        .innerJoin(savedQueries, eq(savedQueries.id, alertRules.savedQueryId))
        .innerJoin(workspaces, eq(workspaces.id, alertRules.workspaceId))
        .where(eq(alertRules.id, named.ruleId));
      if (!rule) throw new ApiError(404, 'alert_rule_not_found', 'This alert rule no longer exists.');
      await db.insert(alertMutes).values(named).onConflictDoNothing();
      return {
        rule_summary: toAlertRuleResponse(rule.row, { canEdit: false, muted: true }).summary,
        saved_query_name: rule.queryName,
        workspace_name: rule.workspaceName,
      };
    },
  );

  const signedInRoutes: FastifyPluginAsyncZod = async (signedIn) => {
    signedIn.addHook('onRequest', app.requireUser);

    signedIn.get(
      '/workspaces/:id/alert-rules',
      {
        config: { workspace: anyMember },
        schema: {
          tags,
          security: bearer,
          summary: "The workspace's alert rules, newest first, with whether the caller muted each",
          params: workspaceParamsSchema,
          response: { 200: alertRuleListResponseSchema, ...errorResponses(404) },
        },
      },
      async (request) => {
        const { workspace, privilege } = workspaceAccessOf(request);
        const rows = await db
          .select()
          .from(alertRules)
          .where(eq(alertRules.workspaceId, workspace.id))
          .orderBy(desc(alertRules.createdAt), desc(alertRules.id));
        const canEdit = atLeast(privilege, 'manager');
        const ids = rows.map((r) => r.id);
        const muted = await mutedBy(request.userId!, ids);
        const last = await lastDeliveries(db, ids);
        return {
          rules: rows.map((row) =>
            toAlertRuleResponse(row, { canEdit, muted: muted.has(row.id) }, last.get(row.id) ?? null),
          ),
          can_edit: canEdit,
          limit: ALERT_RULES_LIMIT,
        };
      },
    );

    signedIn.post(
      '/workspaces/:id/alert-rules',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Make an alert rule on a saved query (owners and managers)',
          description:
            'The threshold must fit the kind (none for a spike; 1 and up for volume; 1 to 100 points for a ' +
            'sentiment shift; 1 to 168 hours for a source silent, whose saved query must be tracked and whose ' +
            'period is not read), the recipients must be members, the webhook URL an http(s) URL of a public host; ' +
            `someone or a webhook must be told (400 invalid_alert_rule says which). At most ${ALERT_RULES_LIMIT} ` +
            'rules a workspace (409 alert_rule_limit). The webhook signing secret is drawn here.',
          params: workspaceParamsSchema,
          body: createAlertRuleBodySchema,
          response: { 201: alertRuleResponseSchema, ...errorResponses(400, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const row = await db.transaction(async (tx) => {
          // The workspace row stays locked until commit: concurrent creates count one after another.
          const access = await lockWorkspaceAccess(tx, config, request);
          const fields = {
            savedQueryId: body.saved_query_id,
            kind: body.kind,
            period: body.period,
            threshold: body.threshold,
            inApp: body.in_app,
            email: body.email,
            recipientIds: [...new Set(body.recipient_ids)],
            webhookUrl: body.webhook_url,
            enabled: body.enabled,
          };
          await checkRule(tx, access.workspace.id, fields, urlRules);
          const [{ n }] = (await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(alertRules)
            .where(eq(alertRules.workspaceId, access.workspace.id))) as [{ n: number }];
          if (n >= ALERT_RULES_LIMIT)
            throw new ApiError(
              409,
              'alert_rule_limit',
              `A workspace can have at most ${ALERT_RULES_LIMIT} alert rules.`,
            );
          const [created] = await tx
            .insert(alertRules)
            .values({
              ...fields,
              workspaceId: access.workspace.id,
              webhookSecret: newWebhookSecret(),
              createdBy: request.userId,
            })
            .returning();
          return created!;
        });
        return reply.status(201).send(toAlertRuleResponse(row, { canEdit: true, muted: false }));
      },
    );

    signedIn.patch(
      '/workspaces/:id/alert-rules/:ruleId',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Change an alert rule (owners and managers)',
          description:
            'The fields given replace the stored ones; the result is checked as a new rule is. A change of kind, ' +
            'period or threshold starts the rule afresh (its current episode is forgotten).',
          params: alertRuleParamsSchema,
          body: updateAlertRuleBodySchema,
          response: { 200: alertRuleResponseSchema, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => {
        const { workspace } = workspaceAccessOf(request);
        const body = request.body;
        const updated = await db.transaction(async (tx) => {
          const [rule] = await tx
            .select()
            .from(alertRules)
            .where(and(eq(alertRules.workspaceId, workspace.id), eq(alertRules.id, request.params.ruleId)))
            .for('update');
          if (!rule) throw alertRuleNotFound();
          const fields = {
            savedQueryId: rule.savedQueryId,
            kind: body.kind ?? rule.kind,
            period: body.period ?? rule.period,
            threshold: body.threshold !== undefined ? body.threshold : rule.threshold,
            inApp: body.in_app ?? rule.inApp,
            email: body.email ?? rule.email,
            recipientIds: body.recipient_ids ? [...new Set(body.recipient_ids)] : rule.recipientIds,
            webhookUrl: body.webhook_url !== undefined ? body.webhook_url : rule.webhookUrl,
            enabled: body.enabled ?? rule.enabled,
          };
          await checkRule(tx, workspace.id, fields, urlRules);
          const afresh =
            fields.kind !== rule.kind || fields.period !== rule.period || fields.threshold !== rule.threshold;
          const [row] = await tx
            .update(alertRules)
            .set({ ...fields, ...(afresh && { episodeWindow: null }), updatedAt: sql`now()` })
            .where(eq(alertRules.id, rule.id))
            .returning();
          return row!;
        });
        const muted = await mutedBy(request.userId!, [updated.id]);
        return toAlertRuleResponse(
          updated,
          { canEdit: true, muted: muted.has(updated.id) },
          await lastOf(updated.id),
        );
      },
    );

    signedIn.delete(
      '/workspaces/:id/alert-rules/:ruleId',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Delete an alert rule with its notifications (owners and managers)',
          params: alertRuleParamsSchema,
          response: { 204: noContent, ...errorResponses(400, 403, 404) },
        },
      },
      async (request, reply) => {
        const { workspace } = workspaceAccessOf(request);
        const [deleted] = await db
          .delete(alertRules)
          .where(and(eq(alertRules.workspaceId, workspace.id), eq(alertRules.id, request.params.ruleId)))
          .returning({ id: alertRules.id });
        if (!deleted) throw alertRuleNotFound();
        return reply.status(204).send(null);
      },
    );

    for (const [method, muted] of [
      ['POST', true],
      ['DELETE', false],
    ] as const) {
      signedIn.route({
        method,
        url: '/workspaces/:id/alert-rules/:ruleId/mute',
        config: { workspace: anyMember },
        schema: {
          tags,
          security: bearer,
          summary: muted
            ? 'Mute an alert rule for yourself (any member): no notification or e-mail of it reaches you'
            : 'Unmute an alert rule for yourself',
          params: alertRuleParamsSchema,
          response: { 200: alertRuleResponseSchema, ...errorResponses(400, 404) },
        },
        handler: async (request) => {
          const { workspace, privilege } = workspaceAccessOf(request);
          const rule = await findAlertRule(db, workspace.id, request.params.ruleId);
          const userId = request.userId!;
          if (muted) await db.insert(alertMutes).values({ ruleId: rule.id, userId }).onConflictDoNothing();
          else
            await db
              .delete(alertMutes)
              .where(and(eq(alertMutes.ruleId, rule.id), eq(alertMutes.userId, userId)));
          return toAlertRuleResponse(
            rule,
            { canEdit: atLeast(privilege, 'manager'), muted },
            await lastOf(rule.id),
          );
        },
      });
    }

    await signedIn.register(deliveryRoutes);
  };
  await app.register(signedInRoutes);
};
