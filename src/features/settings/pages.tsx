import { PageFrame } from '../../components/PageFrame';

export function GeneralSettingsPage() {
  return <PageFrame title="General" description="The workspace's name and content language." />;
}

export function MemberSettingsPage() {
  return (
    <PageFrame title="Members" description="Who belongs to this workspace, their roles, and invitations." />
  );
}

export function PlanSettingsPage() {
  return <PageFrame title="Plan" description="Your plan, its limits and what you use of them." />;
}

export function BillingSettingsPage() {
  return <PageFrame title="Billing" description="Payment method, invoices and billing status." />;
}
