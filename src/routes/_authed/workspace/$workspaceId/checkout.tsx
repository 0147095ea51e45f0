import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { CheckoutPage } from '@/features/billing/CheckoutPage';

/** The plan and interval to preselect, and the payment whose checkout was left (anything else counts as none). */
const searchSchema = z.object({
  plan: z.catch(z.optional(z.string().check(z.regex(/^[a-z][a-z0-9-]{1,30}$/))), undefined),
  interval: z.catch(z.optional(z.enum(['month', 'year'])), undefined),
  canceled: z.catch(z.optional(z.uuid()), undefined),
});

// Spec §4 step 1: no workspace checks here, so the owner of an expired workspace can renew.
export const Route = createFileRoute('/_authed/workspace/$workspaceId/checkout')({
  validateSearch: searchSchema,
  component: CheckoutPage,
});
