import { createFileRoute } from '@tanstack/react-router';
import { meQuery } from '@/api/queries';
import { RouteError } from '@/components/RouteError';
import { UserInfoStep } from '@/features/workspace-creation/steps';

export const Route = createFileRoute('/_authed/workspace/create/user-info')({
  // The step shows the names on the user's profile until they are edited.
  loader: ({ context: { queryClient, api } }) => queryClient.ensureQueryData(meQuery(api)),
  errorComponent: RouteError,
  component: UserInfoStep,
});
