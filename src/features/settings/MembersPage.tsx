// Settings › Members: who belongs to the workspace and their roles, invite links, the join code, and leaving.
// Viewers see a read-only list; owners and managers get the controls their privilege allows (./member-rules.ts).
import { useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import type { Privilege } from '@contract/workspaces';
import { meQuery } from '@/api/queries';
import { planQuery } from '@/api/billing';
import { usageLevel } from '@/lib/billing-format';
import { leaveWorkspace, membersQuery } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { PageFrame } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { InviteLinks } from './InviteLinks';
import { JoinCodePanel } from './JoinCodePanel';
import { MemberList } from './MemberList';
import { canLeave, canManageMembers } from './member-rules';
import { useWorkspace } from './use-workspace';

export function MemberSettingsPage() {
  const { api } = useApp();
  const { workspaceId, workspace, me } = useWorkspace();
  const members = useSuspenseQuery(membersQuery(api, workspaceId)).data;

  const privilege = workspace.privilege;
  const ownerCount = members.filter((member) => member.privilege === 'owner').length;
  const manages = canManageMembers(privilege);

  return (
    <PageFrame title="Members" description="Who belongs to this workspace, their roles, and invitations.">
      <section className="settings-section" aria-labelledby="people-title">
        <h2 id="people-title">People</h2>
        <MemberList
          workspaceId={workspaceId}
          members={members}
          actor={privilege}
          selfId={me.id}
          ownerCount={ownerCount}
          timeZone={workspace.time_zone}
        />
        <SeatUsage workspaceId={workspaceId} />
        {!manages ? (
          <p className="muted small">Only owners and managers can change roles or invite people.</p>
        ) : null}
      </section>
      {manages ? (
        <>
          <InviteLinks workspaceId={workspaceId} actor={privilege} timeZone={workspace.time_zone} />
          <JoinCodePanel workspaceId={workspaceId} />
        </>
      ) : null}
      <LeaveWorkspace
        workspaceId={workspaceId}
        workspaceName={workspace.name}
        self={privilege}
        ownerCount={ownerCount}
      />
    </PageFrame>
  );
}

/** The plan's seats against the members, before the limit bites (invite links and the join code stop at it). */
function SeatUsage({ workspaceId }: { workspaceId: string }) {
  const { api } = useApp();
  // Not suspended on: the list shows at once, the seats follow.
  const seats = useQuery(planQuery(api, workspaceId)).data?.usage.find((item) => item.key === 'members');
  if (!seats || seats.limit === null) return null;
  const level = usageLevel(seats);
  return (
    <p className={level === 'ok' ? 'muted small' : 'notice warning'}>
      {seats.used} of the {seats.limit} members the plan allows
      {level === 'full'
        ? ': invite links and the join code admit nobody new until a seat is free or the plan is bigger.'
        : level === 'warning'
          ? ': close to the limit.'
          : '.'}
    </p>
  );
}

function LeaveWorkspace({
  workspaceId,
  workspaceName,
  self,
  ownerCount,
}: {
  workspaceId: string;
  workspaceName: string;
  self: Privilege;
  ownerCount: number;
}) {
  const { api, queryClient } = useApp();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const allowed = canLeave(self, ownerCount);

  const leave = useMutation({
    mutationFn: () => leaveWorkspace(api, workspaceId),
    onSuccess: async () => {
      setConfirming(false);
      // The login decision must see the new list of workspaces, so it picks another one (or creation).
      await queryClient.invalidateQueries({ queryKey: meQuery(api).queryKey, refetchType: 'none' });
      showToast('success', `You left ${workspaceName}`);
      await navigate({ to: '/login', search: {} });
      // Only once its pages are gone, so they do not fetch it again: nothing about this workspace stays cached.
      queryClient.removeQueries({ queryKey: ['workspaces', workspaceId] });
    },
  });

  return (
    <section className="settings-section danger-zone" aria-labelledby="leave-title">
      <h2 id="leave-title">Leave workspace</h2>
      <p id="leave-description" className="muted small">
        {allowed
          ? 'You lose access at once. Someone will have to invite you again to come back.'
          : 'You are the only owner. Make someone else an owner before you leave.'}
      </p>
      <button
        type="button"
        className="button danger"
        disabled={!allowed}
        aria-describedby="leave-description"
        onClick={() => {
          leave.reset();
          setConfirming(true);
        }}
      >
        Leave workspace
      </button>
      {confirming ? (
        <ConfirmDialog
          title={`Leave ${workspaceName}?`}
          confirmLabel="Leave"
          pendingLabel="Leaving…"
          destructive
          pending={leave.isPending}
          error={leave.isError ? apiProblem(leave.error).message : null}
          onConfirm={() => leave.mutate()}
          onCancel={() => setConfirming(false)}
        >
          You lose access to its saved queries and dashboards at once.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
