import { PageFrame } from '../../components/PageFrame';

// General and Members live in their own modules (GeneralSettingsPage.tsx, MembersPage.tsx).

export function PlanSettingsPage() {
  return <PageFrame title="Plan" description="Your plan, its limits and what you use of them." />;
}

export function BillingSettingsPage() {
  return <PageFrame title="Billing" description="Payment method, invoices and billing status." />;
}
