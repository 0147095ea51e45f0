import { createFileRoute } from '@tanstack/react-router';
import { meQuery, workspaceQuery } from '@/api/queries';
import { invitesQuery, joinCodeQuery, membersQuery } from '@/api/workspaces';
import { Pending } from '@/components/Pending';
import { RouteError } from '@/components/RouteError';
import { MemberSettingsPage } from '@/features/settings/MembersPage';
import { canManageMembers } from '@/features/settings/member-rules';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/settings/member')({
  loader: async ({ context: { queryClient, api }, params: { workspaceId } }) => {
    const [workspace] = await Promise.all([
      queryClient.ensureQueryData(workspaceQuery(api, workspaceId)),
      queryClient.ensureQueryData(meQuery(api)),
      queryClient.ensureQueryData(membersQuery(api, workspaceId)),
    ]);
    // Invite links and the join code are for those who manage members; a viewer's page never asks for them.
    if (canManageMembers(workspace.privilege)) {
      await Promise.all([
        queryClient.ensureQueryData(invitesQuery(api, workspaceId)),
        queryClient.ensureQueryData(joinCodeQuery(api, workspaceId)),
      ]);
    }
  },
  pendingComponent: () => <Pending label="Loading members…" />,
  errorComponent: RouteError,
  component: MemberSettingsPage,
});
