import { createFileRoute } from '@tanstack/react-router';
import { PeoplePage } from '@/features/insight/PeoplePage';
import { peopleSearchSchema } from '@/features/insight/list-search';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/people')({
  validateSearch: peopleSearchSchema,
  component: PeoplePage,
});
