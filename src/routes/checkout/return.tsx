import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { CheckoutReturnPage } from '@/features/billing/CheckoutReturnPage';

/** The payment the checkout was for (anything but a UUID counts as none). */
const searchSchema = z.object({ payment_id: z.catch(z.optional(z.uuid()), undefined) });

export const Route = createFileRoute('/checkout/return')({
  validateSearch: searchSchema,
  component: CheckoutReturnPage,
});
