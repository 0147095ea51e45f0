// An alert rule's deliveries (owners and managers): its delivery log, and a test sent through the same sending code
// as an alert's. Registered by routes.ts inside its signed-in routes (the session and the rate limits are theirs).
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ALERT_DELIVERY_LOG_KEPT,
  alertDeliveryLogResponseSchema,
  alertRuleParamsSchema,
} from '@contract/alerts';
import { users } from '@server/db/schema';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { sendTest } from './deliver';
import { deliveryLogOf } from './delivery-log';
import { alertRulesDenied, findAlertRule } from './store';

const tags = ['alerts'];
const editors: WorkspaceRequirement = { from: 'params', minimum: 'manager', denied: alertRulesDenied };

export const deliveryRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  app.get(
    '/workspaces/:id/alert-rules/:ruleId/deliveries',
    {
      config: { workspace: editors },
      schema: {
        tags,
        security: bearer,
        summary: "An alert rule's recent e-mail and webhook deliveries, newest first (owners and managers)",
        description:
          `Each attempt (retries and tests included; the newest ${ALERT_DELIVERY_LOG_KEPT} are kept): when, to ` +
          "whom (an address, or the webhook's host), whether it went through, the receiver's status (HTTP, or the " +
          'SMTP reply code) and why it failed, in words, and whether it will be tried again.',
        params: alertRuleParamsSchema,
        response: { 200: alertDeliveryLogResponseSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const rule = await findAlertRule(db, workspace.id, request.params.ruleId);
      return { deliveries: await deliveryLogOf(db, rule.id) };
    },
  );

  app.post(
    '/workspaces/:id/alert-rules/:ruleId/test',
    {
      config: {
        workspace: editors,
        // Each test sends real e-mails and a real webhook call: a few a minute per rule from one address.
        rateLimit: {
          max: 5,
          timeWindow: '1 minute',
          keyGenerator: (request) => `${request.ip} ${(request.params as { ruleId?: string }).ruleId ?? ''}`,
        },
      },
      schema: {
        tags,
        security: bearer,
        summary: 'Send a test of an alert rule to its webhook and e-mail recipients (owners and managers)',
        description:
          "A message marked as a test (the webhook's `murmur.test` is true), sent at once through the same " +
          "sending code as an alert's, to the rule's webhook and, when it e-mails, each recipient who has not " +
          'muted it; never retried. Answers each attempt as the delivery log records it. 400 nothing_to_test when ' +
          'the rule has no webhook and no e-mail recipient; 5 a minute per rule (429).',
        params: alertRuleParamsSchema,
        response: { 200: alertDeliveryLogResponseSchema, ...errorResponses(400, 403, 404, 429) },
      },
    },
    async (request) => {
      const { workspace } = workspaceAccessOf(request);
      const rule = await findAlertRule(db, workspace.id, request.params.ruleId);
      const [caller] = await db
        .select({ email: users.email })
        .from(users)
        .where(eq(users.id, request.userId!));
      const deliveries = await sendTest(
        {
          db,
          mailer: app.deps.mailer,
          appUrl: config.APP_URL,
          unsubscribeKey: app.keys.alertUnsubscribe,
          allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
        },
        { workspaceId: workspace.id, ruleId: rule.id, sentBy: caller?.email ?? 'A member' },
      );
      if (!deliveries)
        throw new ApiError(
          400,
          'nothing_to_test',
          'This rule sends no e-mail and has no webhook: there is nothing to test. In-app notifications need no test.',
        );
      return { deliveries };
    },
  );
};
