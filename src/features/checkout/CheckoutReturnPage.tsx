import { Link } from '@tanstack/react-router';
import { PageFrame } from '../../components/PageFrame';

/** Where the card checkout returns to (spec §2, loaded lazily). */
export function CheckoutReturnPage() {
  return (
    <main className="centered-screen">
      <PageFrame title="Checkout" description="You are back from the card checkout.">
        <Link to="/login" search={{}} className="button primary">
          Continue to your workspace
        </Link>
      </PageFrame>
    </main>
  );
}
