import { createFileRoute } from '@tanstack/react-router';
import { BillingSettingsPage } from '../../../../../features/settings/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/billing')({
  component: BillingSettingsPage,
});
