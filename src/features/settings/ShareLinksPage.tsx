// Settings › Share links: the workspace's read-only share links (made from a dashboard's "Share or export…"), the
// name its maker gave each (to tell links to the same view apart), who made each and when, when it expires, when it was last opened and how often; owners and managers revoke them. A
// viewer is told the list is theirs to see.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SHARED_VIEW_TITLES, type ShareLink } from '@contract/share-links';
import { apiProblem } from '@/api/errors';
import { revokeShareLink, shareLinksQuery } from '@/api/share-links';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError } from '@/components/Field';
import { PageFrame, EmptyState } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { formatDate, formatDateTime } from '@/lib/date-time';
import { showToast } from '@/lib/toast';
import { canManageMembers } from './member-rules';
import { useWorkspace } from './use-workspace';

const STATUS: Record<ShareLink['status'], string> = {
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
};

export function ShareLinksPage() {
  const { workspace, workspaceId } = useWorkspace();
  return (
    <PageFrame
      title="Share links"
      description="Read-only links to dashboard views, opened without signing in. Make one from a dashboard's “Share or export…”."
    >
      {canManageMembers(workspace.privilege) ? (
        <ShareLinkList workspaceId={workspaceId} timeZone={workspace.time_zone} />
      ) : (
        <p>Owners and managers share views and see the workspace&apos;s share links.</p>
      )}
    </PageFrame>
  );
}

function ShareLinkList({ workspaceId, timeZone }: { workspaceId: string; timeZone: string }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const links = useQuery(shareLinksQuery(api, workspaceId));
  const [revoking, setRevoking] = useState<ShareLink | null>(null);
  const revoke = useMutation({
    mutationFn: (link: ShareLink) => revokeShareLink(api, workspaceId, link.id),
    onSuccess: async () => {
      setRevoking(null);
      showToast('success', 'Link revoked: it shows nothing any more');
      await queryClient.invalidateQueries({ queryKey: shareLinksQuery(api, workspaceId).queryKey });
    },
  });
  if (links.isError) return <FormError message={apiProblem(links.error).message} />;
  if (!links.data) return <Pending label="Loading share links…" />;
  if (!links.data.links.length) {
    return (
      <EmptyState title="No share links yet">
        Open a dashboard and choose “Share or export…” to make one.
      </EmptyState>
    );
  }
  return (
    <>
      <div className="table-wrap">
        <table className="table share-links">
          <caption className="visually-hidden">Share links, newest first</caption>
          <thead>
            <tr>
              <th scope="col">View</th>
              <th scope="col">Made by</th>
              <th scope="col">Expires</th>
              <th scope="col">Last opened</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {links.data.links.map((link) => (
              <tr key={link.id}>
                <th scope="row">
                  {link.name ? <div className="share-link-name">{link.name}</div> : null}
                  {SHARED_VIEW_TITLES[link.dashboard]}: {link.title}
                  <div className="small muted">
                    {formatDate(link.range.from, timeZone)} – {formatDate(link.range.to, timeZone)}
                    {link.rolling ? ' (rolling)' : ''}
                  </div>
                </th>
                <td>
                  {link.created_by ?? 'A former member'}
                  <div className="small muted">{formatDate(link.created_at, timeZone)}</div>
                </td>
                <td>{formatDate(link.expires_at, timeZone)}</td>
                <td>
                  {link.last_opened_at
                    ? `${formatDateTime(link.last_opened_at, timeZone)} (${link.opens}×)`
                    : 'Never'}
                </td>
                <td>{STATUS[link.status]}</td>
                <td>
                  {link.status === 'active' ? (
                    <button
                      type="button"
                      className="button danger-text small"
                      aria-label={
                        link.name
                          ? `Revoke the link “${link.name}” to ${SHARED_VIEW_TITLES[link.dashboard]}: ${link.title}`
                          : `Revoke the link to ${SHARED_VIEW_TITLES[link.dashboard]}: ${link.title}`
                      }
                      onClick={() => setRevoking(link)}
                    >
                      Revoke
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {revoking ? (
        <ConfirmDialog
          title="Revoke this link?"
          confirmLabel="Revoke"
          pendingLabel="Revoking…"
          destructive
          pending={revoke.isPending}
          error={revoke.isError ? apiProblem(revoke.error).message : null}
          onConfirm={() => revoke.mutate(revoking)}
          onCancel={() => setRevoking(null)}
        >
          Whoever opens it from now on sees that it was revoked, and no data.
        </ConfirmDialog>
      ) : null}
    </>
  );
}
