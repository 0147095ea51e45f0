import { PageFrame } from '../../components/PageFrame';

export function CheckoutPage() {
  return (
    <PageFrame title="Checkout" description="Pay for a plan with a card; you return here when it is done." />
  );
}
