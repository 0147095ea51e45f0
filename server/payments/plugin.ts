// Mounts the built-in payment provider under PAYMENT_SERVER_URL's path (/payments/ by default): the hosted checkout
// page, its card form, the confirmation step, and the webhook deliveries back to the server's own webhook endpoint.
// Registered only when config.PAYMENT_PROVIDER is 'builtin' (local, dev and qa by default; never in prod).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import * as z from 'zod/mini';
import type { ServerConfig } from '@server/config';
import { securityHeaderValues } from '@server/security-headers';
import { authenticatePage, checkoutPage, messagePage, PAGE_STYLE_SOURCE } from './pages';
import type { BuiltinPayments, PayResult } from './service';
import { SIGNATURE_HEADER } from './signature';

export interface BuiltinPaymentsPluginOptions {
  config: ServerConfig;
  payments: BuiltinPayments;
}

const hide = { hide: true };
const params = z.object({ id: z.string().check(z.regex(/^cs_[A-Za-z0-9_-]{8,40}$/)) });
const field = (max: number) => z._default(z.string().check(z.maxLength(max)), '');
const cardForm = z.object({ number: field(40), expiry: field(10), cvc: field(8), name: field(120) });
const outcomeForm = z.object({ outcome: z.enum(['complete', 'fail']) });

/** Where the server receives this provider's webhooks (the billing routes, under /api). */
const BUILTIN_WEBHOOK_PATH = '/api/billing/webhooks/builtin';

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
}

export const builtinPaymentsPlugin: FastifyPluginAsync<BuiltinPaymentsPluginOptions> = async (
  app,
  { config, payments },
) => {
  const base = new URL(config.PAYMENT_SERVER_URL).pathname.replace(/\/?$/, '/');
  // The webhooks go to the server itself: an HTTP request through Fastify's whole pipeline, without a socket.
  payments.setDeliver(async (payload, signature) => {
    const answer = await app.inject({
      method: 'POST',
      url: BUILTIN_WEBHOOK_PATH,
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
      payload,
    });
    return answer.statusCode;
  });
  // The pages' own policy: no scripts at all, their one inline stylesheet, and forms that end on the product's origin.
  const policy = {
    config: {
      securityHeaders: await securityHeaderValues(config, {
        'default-src': ["'none'"],
        'style-src': [PAGE_STYLE_SOURCE],
        'img-src': ["'self'"],
        'form-action': ["'self'", new URL(config.APP_URL).origin],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
      }),
    },
  };

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    const gone = (reply: FastifyReply, message = 'This checkout does not exist or has ended.') =>
      sendHtml(
        reply,
        404,
        messagePage('Checkout not available', message, { href: config.APP_URL, label: 'Back to Murmur' }),
      );

    async function render(
      reply: FastifyReply,
      id: string,
      status = 200,
      error?: string,
      form?: { name: string; expiry: string },
    ) {
      const session = await payments.session(id);
      if (!session) return gone(reply);
      if (session.status === 'requires_action')
        return reply.redirect(`${base}checkout/${id}/authenticate`, 303);
      if (session.status === 'succeeded') return reply.redirect(session.successUrl!, 303);
      if (session.status === 'expired' || session.expiresAt.getTime() <= Date.now()) {
        return gone(reply, 'This checkout has expired. Start again from the workspace.');
      }
      return sendHtml(
        reply,
        status,
        checkoutPage({
          action: `${base}checkout/${id}`,
          amount: session.amount,
          currency: session.currency,
          description: session.description,
          email: session.customerEmail,
          cancelUrl: session.cancelUrl!,
          error: error ?? session.failureMessage ?? undefined,
          form,
        }),
      );
    }

    async function answer(
      reply: FastifyReply,
      id: string,
      result: PayResult,
      form?: { name: string; expiry: string },
    ) {
      if (result.kind === 'redirect') return reply.redirect(result.url, 303);
      if (result.kind === 'authenticate') return reply.redirect(`${base}checkout/${id}/authenticate`, 303);
      if (result.kind === 'gone') return gone(reply, result.message);
      return render(reply, id, 402, result.message, form);
    }

    scope.get(`${base}checkout/:id`, { schema: hide, ...policy }, async (request, reply) => {
      const parsed = z.safeParse(params, request.params);
      return parsed.success ? render(reply, parsed.data.id) : gone(reply);
    });

    scope.post(`${base}checkout/:id`, { schema: hide, ...policy }, async (request, reply) => {
      const parsed = z.safeParse(params, request.params);
      if (!parsed.success) return gone(reply);
      const form = z.safeParse(cardForm, request.body ?? {});
      if (!form.success) return render(reply, parsed.data.id, 400, 'Fill in the card form.');
      const result = await payments.pay(parsed.data.id, form.data);
      return answer(reply, parsed.data.id, result, { name: form.data.name, expiry: form.data.expiry });
    });

    scope.get(`${base}checkout/:id/authenticate`, { schema: hide, ...policy }, async (request, reply) => {
      const parsed = z.safeParse(params, request.params);
      if (!parsed.success) return gone(reply);
      const session = await payments.session(parsed.data.id);
      if (!session) return gone(reply);
      if (session.status !== 'requires_action') return render(reply, parsed.data.id);
      const method = session.paymentMethodId ? await payments.method(session.paymentMethodId) : null;
      return sendHtml(
        reply,
        200,
        authenticatePage({
          action: `${base}checkout/${parsed.data.id}/authenticate`,
          amount: session.amount,
          currency: session.currency,
          last4: method?.last4 ?? null,
        }),
      );
    });

    scope.post(`${base}checkout/:id/authenticate`, { schema: hide, ...policy }, async (request, reply) => {
      const parsed = z.safeParse(params, request.params);
      const form = z.safeParse(outcomeForm, request.body ?? {});
      if (!parsed.success) return gone(reply);
      if (!form.success) return reply.redirect(`${base}checkout/${parsed.data.id}/authenticate`, 303);
      return answer(reply, parsed.data.id, await payments.authenticate(parsed.data.id, form.data.outcome));
    });
  });
};
