// The members table: name, email, role and joined date; a role select and Remove where the viewer of the page may.
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { MemberResponse, Privilege } from '@contract/workspaces';
import { workspaceQuery } from '@/api/queries';
import { membersQuery, removeMember, updateMember } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { EmptyState } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { formatDate } from '@/lib/date-time';
import { assignableRoles, canRemove, displayName, privilegeLabel } from './member-rules';

const withArticle: Record<Privilege, string> = {
  owner: 'an owner',
  manager: 'a manager',
  viewer: 'a viewer',
};

interface MemberListProps {
  workspaceId: string;
  members: MemberResponse[];
  actor: Privilege;
  selfId: string | null;
  ownerCount: number;
  /** The workspace's: the days members joined are written in it. */
  timeZone: string;
}

export function MemberList({ workspaceId, members, actor, selfId, ownerCount, timeZone }: MemberListProps) {
  const { api, queryClient } = useApp();
  const [removing, setRemoving] = useState<MemberResponse | null>(null);

  const changeRole = useMutation({
    mutationFn: ({ member, privilege }: { member: MemberResponse; privilege: Privilege }) =>
      updateMember(api, workspaceId, member.user_id, privilege),
    onSuccess: async (updated, { member }) => {
      showToast('success', `${displayName(member)} is now ${withArticle[updated.privilege]}`);
      // Changing one's own role changes what this page may offer, so the workspace is read again too.
      if (member.user_id === selfId) {
        await queryClient.invalidateQueries({ queryKey: workspaceQuery(api, workspaceId).queryKey });
      } else {
        await queryClient.invalidateQueries({ queryKey: membersQuery(api, workspaceId).queryKey });
      }
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });

  const remove = useMutation({
    mutationFn: (member: MemberResponse) => removeMember(api, workspaceId, member.user_id),
    onSuccess: async (_, member) => {
      setRemoving(null);
      showToast('success', `${displayName(member)} was removed`);
      await queryClient.invalidateQueries({ queryKey: membersQuery(api, workspaceId).queryKey });
    },
  });

  if (members.length === 0) return <EmptyState title="No members yet" />;

  return (
    <>
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Members of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => {
              const name = displayName(member);
              const isSelf = member.user_id === selfId;
              const roles = assignableRoles(actor, member.privilege, ownerCount);
              const pending = changeRole.isPending && changeRole.variables.member.user_id === member.user_id;
              return (
                <tr key={member.user_id}>
                  <th scope="row">
                    {name}
                    {isSelf ? <span className="muted"> (you)</span> : null}
                  </th>
                  <td>{member.email}</td>
                  <td>
                    {roles.length > 1 ? (
                      <select
                        className="input compact"
                        aria-label={`Role of ${name}`}
                        value={member.privilege}
                        disabled={pending}
                        onChange={(event) =>
                          changeRole.mutate({ member, privilege: event.target.value as Privilege })
                        }
                      >
                        {roles.map((role) => (
                          <option key={role} value={role}>
                            {privilegeLabel[role]}
                          </option>
                        ))}
                      </select>
                    ) : (
                      privilegeLabel[member.privilege]
                    )}
                  </td>
                  <td>
                    <time dateTime={new Date(member.joined_at * 1000).toISOString()}>
                      {formatDate(member.joined_at, timeZone)}
                    </time>
                  </td>
                  <td className="actions">
                    {canRemove(actor, member.privilege, ownerCount, isSelf) ? (
                      <button
                        type="button"
                        className="button small danger-text"
                        aria-label={`Remove ${name}`}
                        onClick={() => {
                          remove.reset();
                          setRemoving(member);
                        }}
                      >
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${displayName(removing)}?`}
          confirmLabel="Remove"
          pendingLabel="Removing…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => setRemoving(null)}
        >
          They lose access to this workspace at once. You can invite them again later.
        </ConfirmDialog>
      ) : null}
    </>
  );
}
