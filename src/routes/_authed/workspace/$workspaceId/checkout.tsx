import { createFileRoute } from '@tanstack/react-router';
import { CheckoutPage } from '../../../../features/workspace/CheckoutPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/checkout')({
  component: CheckoutPage,
});
