import { createFileRoute } from '@tanstack/react-router';
import { PlanRequiredPage } from '../../../../features/workspace/PlanRequiredPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/plan-required')({
  component: PlanRequiredPage,
});
