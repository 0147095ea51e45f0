import { createFileRoute } from '@tanstack/react-router';
import { CheckoutReturnPage } from '../../features/checkout/CheckoutReturnPage';

export const Route = createFileRoute('/checkout/return')({
  component: CheckoutReturnPage,
});
