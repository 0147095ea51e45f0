import { createFileRoute } from '@tanstack/react-router';
import { CheckoutPage } from '../../../features/workspace/CheckoutPage';

export const Route = createFileRoute('/workspace/$workspaceId/checkout')({
  component: CheckoutPage,
});
