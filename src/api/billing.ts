// Calls of the plan, billing and checkout endpoints (internal API), then their queryOptions.
import { queryOptions } from '@tanstack/react-query';
import type { Api } from './api';
import { HttpError } from './errors';
import {
  billingResponseSchema,
  changePlanResponseSchema,
  checkoutResponseSchema,
  paymentResponseSchema,
  planResponseSchema,
  type BillingDetails,
  type CheckoutBody,
} from '@contract/billing';

const base = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}`;

export const startCheckout = (api: Api, workspaceId: string, body: CheckoutBody) =>
  api.send(`${base(workspaceId)}/checkout`, checkoutResponseSchema, { method: 'POST', body });

export const changePlan = (api: Api, workspaceId: string, body: CheckoutBody) =>
  api.send(`${base(workspaceId)}/plan/change`, changePlanResponseSchema, { method: 'POST', body });

export const cancelPlan = (api: Api, workspaceId: string) =>
  api.send(`${base(workspaceId)}/plan/cancel`, planResponseSchema, { method: 'POST' });

export const resumePlan = (api: Api, workspaceId: string) =>
  api.send(`${base(workspaceId)}/plan/resume`, planResponseSchema, { method: 'POST' });

export const updateBillingDetails = (api: Api, workspaceId: string, body: BillingDetails) =>
  api.send(`${base(workspaceId)}/billing`, billingResponseSchema, { method: 'PATCH', body });

export const getPayment = (api: Api, paymentId: string) =>
  api.send(`checkout/payments/${encodeURIComponent(paymentId)}`, paymentResponseSchema, { method: 'GET' });

/** Resolves once the payment is no longer waiting for the provider (paid, failed or expired), or after ~30 s. */
export async function settledPayment(api: Api, paymentId: string, everyMs = 1000, tries = 30) {
  for (let i = 0; i < tries; i++) {
    const payment = await getPayment(api, paymentId);
    if (!['open', 'processing', 'requires_action'].includes(payment.status)) return payment;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return null;
}

/** An invoice's document (HTML), with the file name the server gave it. */
export async function downloadInvoice(api: Api, workspaceId: string, invoiceId: string) {
  const response = await api.http
    .url(`${base(workspaceId)}/billing/invoices/${encodeURIComponent(invoiceId)}/document`)
    .headers({ Accept: 'text/html' })
    .get()
    .res()
    .catch((error: unknown) => {
      const failed = error as { status?: number; url?: string; message?: string };
      if (typeof failed.status === 'number') {
        throw new HttpError('GET', failed.url ?? '', failed.status, failed.message ?? '', null);
      }
      throw error;
    });
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'invoice.html';
  return { blob: await response.blob(), name };
}

// Query options, under ['workspaces', id] so dropping a workspace drops them too.

export const planQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'plan'] as const,
    queryFn: ({ signal }) =>
      api.send(`${base(workspaceId)}/plan`, planResponseSchema, { method: 'GET', signal }),
    staleTime: 15_000,
  });

export const billingQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'billing'] as const,
    queryFn: ({ signal }) =>
      api.send(`${base(workspaceId)}/billing`, billingResponseSchema, { method: 'GET', signal }),
    staleTime: 15_000,
  });
