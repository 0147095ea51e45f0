// Plan, billing and checkout endpoints, registered under /api by server/routes.ts. Every member sees the plan and its
// usage (so limits are visible before they bite); only owners buy, change, cancel and see billing. The webhook
// endpoint takes no sign-in: the provider's signature over the raw body is its proof.
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { and, eq } from 'drizzle-orm';
import { invoices } from '@server/db/billing-schema';
import { ApiError } from '@server/errors';
import {
  billingDetailsSchema,
  billingResponseSchema,
  changePlanResponseSchema,
  checkoutBodySchema,
  checkoutResponseSchema,
  invoiceParamsSchema,
  paymentParamsSchema,
  paymentResponseSchema,
  planResponseSchema,
} from '@contract/billing';
import { workspaceParamsSchema } from '@contract/workspaces';
import { bearer, errorResponses } from '@server/openapi';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { billingView, ownersOnly, planView, updateDetails } from './service';
import { cancelPlan, changePlan, paymentFor, resumePlan, startCheckout } from './plan-changes';
import { applyEvent } from './events';
import { WebhookSignatureError } from './provider';
import { invoiceDocument } from './invoice-document';

const tags = ['billing'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const owner: WorkspaceRequirement = { from: 'params', minimum: 'owner', denied: ownersOnly };

export const billingRoutes: FastifyPluginAsyncZod = async (app) => {
  const ctx = app.billing;

  await app.register(async (scope) => {
    const signedIn = scope.withTypeProvider<ZodTypeProvider>();
    signedIn.addHook('onRequest', app.requireUser);

    signedIn.get(
      '/workspaces/:id/plan',
      {
        config: { workspace: anyMember },
        schema: {
          tags,
          security: bearer,
          summary: 'The plan: status, period, usage against every limit and the plans to choose from',
          params: workspaceParamsSchema,
          response: { 200: planResponseSchema, ...errorResponses(404) },
        },
      },
      async (request) => planView(ctx, workspaceAccessOf(request)),
    );

    signedIn.post(
      '/workspaces/:id/checkout',
      {
        config: { workspace: owner },
        schema: {
          tags,
          security: bearer,
          summary: 'Start a card checkout for a plan (owners); the plan changes only on the verified webhook',
          description:
            '409 already_subscribed while a paid period runs (change the plan instead); 503 when no payment ' +
            'provider is configured.',
          params: workspaceParamsSchema,
          body: checkoutBodySchema,
          response: { 200: checkoutResponseSchema, ...errorResponses(400, 403, 404, 409, 503) },
        },
      },
      async (request) => startCheckout(ctx, workspaceAccessOf(request), request.userId, request.body),
    );

    signedIn.post(
      '/workspaces/:id/plan/change',
      {
        config: { workspace: owner },
        schema: {
          tags,
          security: bearer,
          summary:
            'Change the paid plan: an upgrade is charged now (prorated), a downgrade waits for the period end',
          description:
            '409 downgrade_blocked names what exceeds the smaller plan; 409 no_running_plan without a paid period.',
          params: workspaceParamsSchema,
          body: checkoutBodySchema,
          response: { 200: changePlanResponseSchema, ...errorResponses(400, 403, 404, 409, 503) },
        },
      },
      async (request) => {
        const access = workspaceAccessOf(request);
        const changed = await changePlan(ctx, access, request.userId, request.body);
        return { ...changed, checkout_url: null, plan: await planView(ctx, access) };
      },
    );

    for (const [path, action, summary] of [
      ['cancel', cancelPlan, 'Cancel at the end of the period (owners); the plan stays until then'],
      ['resume', resumePlan, 'Resume a canceled plan before its period ends (owners)'],
    ] as const) {
      signedIn.post(
        `/workspaces/:id/plan/${path}`,
        {
          config: { workspace: owner },
          schema: {
            tags,
            security: bearer,
            summary,
            params: workspaceParamsSchema,
            response: { 200: planResponseSchema, ...errorResponses(403, 404, 409) },
          },
        },
        async (request) => {
          const access = workspaceAccessOf(request);
          await action(ctx, access);
          return planView(ctx, access);
        },
      );
    }

    signedIn.get(
      '/workspaces/:id/billing',
      {
        config: { workspace: owner },
        schema: {
          tags,
          security: bearer,
          summary: 'Billing (owners): the saved card, billing details and invoices',
          params: workspaceParamsSchema,
          response: { 200: billingResponseSchema, ...errorResponses(403, 404) },
        },
      },
      async (request) => billingView(ctx, workspaceAccessOf(request)),
    );

    signedIn.patch(
      '/workspaces/:id/billing',
      {
        config: { workspace: owner },
        schema: {
          tags,
          security: bearer,
          summary: 'Set the billing e-mail and address (owners); later invoices carry them',
          params: workspaceParamsSchema,
          body: billingDetailsSchema,
          response: { 200: billingResponseSchema, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => updateDetails(ctx, workspaceAccessOf(request), request.body),
    );

    signedIn.get(
      '/workspaces/:id/billing/invoices/:invoiceId/document',
      {
        config: { workspace: owner },
        schema: {
          tags,
          security: bearer,
          summary: 'An invoice as a printable HTML document, downloaded (owners)',
          params: invoiceParamsSchema,
          response: { 200: z.string(), ...errorResponses(403, 404) },
        },
      },
      async (request, reply) => {
        const { workspace } = workspaceAccessOf(request);
        const [invoice] = await ctx.db
          .select()
          .from(invoices)
          .where(and(eq(invoices.id, request.params.invoiceId), eq(invoices.workspaceId, workspace.id)));
        if (!invoice) throw new ApiError(404, 'invoice_not_found', 'There is no such invoice.');
        return reply
          .type('text/html; charset=utf-8')
          .header('content-disposition', `attachment; filename="invoice-${invoice.number}.html"`)
          .send(invoiceDocument(invoice, workspace));
      },
    );

    signedIn.get(
      '/checkout/payments/:paymentId',
      {
        schema: {
          tags,
          security: bearer,
          summary: "A payment's state, for the checkout return page (owners of its workspace)",
          params: paymentParamsSchema,
          response: { 200: paymentResponseSchema, ...errorResponses(404) },
        },
      },
      async (request) => paymentFor(ctx, request.params.paymentId, request.userId),
    );
  });

  await app.register(async (scope) => {
    const hooks = scope.withTypeProvider<ZodTypeProvider>();
    // The signature covers the exact bytes: the body stays a Buffer.
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    hooks.post(
      '/billing/webhooks/:provider',
      {
        schema: {
          tags,
          summary: "The payment provider's webhooks (signed; no sign-in)",
          description:
            "Verified with the provider's signature (Murmur-Signature for the built-in provider, Stripe-Signature " +
            'for Stripe); 400 invalid_signature otherwise. An event handled before answers 200 and changes nothing.',
          params: z.object({ provider: z.enum(['builtin', 'stripe']) }),
          response: {
            200: z.object({ received: z.literal(true), outcome: z.string() }),
            ...errorResponses(400, 404),
          },
        },
      },
      async (request) => {
        const provider = ctx.provider;
        if (!provider || provider.name !== request.params.provider) {
          throw new ApiError(404, 'not_found', 'This payment provider is not in use.');
        }
        if (!Buffer.isBuffer(request.body)) {
          throw new ApiError(400, 'invalid_request', 'The webhook has no body.');
        }
        let event;
        try {
          event = await provider.parseWebhook(request.body, request.headers);
        } catch (error) {
          if (error instanceof WebhookSignatureError) {
            throw new ApiError(400, 'invalid_signature', 'The webhook signature is not valid.');
          }
          if (error instanceof SyntaxError || (error as { name?: string }).name === '$ZodError') {
            throw new ApiError(400, 'invalid_request', 'The webhook body is not an event.');
          }
          throw error;
        }
        const outcome = await applyEvent(ctx, provider.name, event);
        return { received: true as const, outcome };
      },
    );
  });
};
