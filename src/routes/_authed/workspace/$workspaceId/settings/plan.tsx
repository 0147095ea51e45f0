import { createFileRoute } from '@tanstack/react-router';
import { PlanSettingsPage } from '../../../../../features/settings/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/plan')({
  component: PlanSettingsPage,
});
