import { createFileRoute } from '@tanstack/react-router';
import { PeoplePage } from '../../../../../features/insight/pages';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/people')({
  component: PeoplePage,
});
