// Saved queries: the workspace's queries with their author, last edit and last 7 days' mentions, one click from
// their dashboards; owners and managers create, edit, duplicate and delete them (viewers see the controls disabled
// with the reason), within the plan's limit, shown before it bites. The form opens with ?edit=new or ?edit=<id>. Each
// query's tracking (coverage for every member, the Track control for owners and managers) opens above the list.
import { useState } from 'react';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import type { SavedQuery } from '@contract/saved-queries';
import { workspaceQuery } from '@/api/queries';
import {
  createSavedQuery,
  deleteSavedQuery,
  savedQueriesQuery,
  savedQueryVolumeQuery,
} from '@/api/saved-queries';
import { membersQuery } from '@/api/workspaces';
import { apiProblem, isPreparing } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError } from '@/components/Field';
import { EmptyState, PageFrame } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { SavedQueryForm } from './SavedQueryForm';
import { SavedQueryList } from './SavedQueryList';
import { TrackingPanel } from './TrackingPanel';
import {
  canEditSavedQueries,
  copyName,
  limitReason,
  usageLevel,
  usageText,
  VIEWER_REASON,
} from './saved-query-rules';

const ROUTE = '/_authed/workspace/$workspaceId/saved-queries';
const VIEWER_REASON_ID = 'saved-queries-viewer-reason';
const LIMIT_REASON_ID = 'saved-queries-limit-reason';

export function SavedQueriesPage() {
  const { workspaceId } = useParams({ from: ROUTE });
  const { edit } = useSearch({ from: ROUTE });
  const navigate = useNavigate({ from: '/workspace/$workspaceId/saved-queries' });
  const { api, queryClient } = useApp();
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  const { saved_queries: queries, usage } = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data;
  const members = useSuspenseQuery(membersQuery(api, workspaceId)).data;
  // Not suspended on: the list shows at once and the counts follow; a failure (e.g. the rate limit) costs only them.
  const volume = useQuery(savedQueryVolumeQuery(api, workspaceId));
  const [deleting, setDeleting] = useState<SavedQuery | null>(null);
  const [trackingId, setTrackingId] = useState<string | null>(null);

  const editor = canEditSavedQueries(workspace.privilege);
  const level = usageLevel(usage);
  const full = level === 'full';
  const viewerRefusal = { id: VIEWER_REASON_ID, reason: VIEWER_REASON };
  const editDisabledBy = editor ? null : viewerRefusal;
  const createDisabledBy = !editor
    ? viewerRefusal
    : full
      ? { id: LIMIT_REASON_ID, reason: limitReason(usage.limit ?? usage.count) }
      : null;

  const openForm = (target: 'new' | string) => void navigate({ search: { edit: target } });
  const closeForm = () => void navigate({ search: {} });
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: savedQueriesQuery(api, workspaceId).queryKey });

  const duplicate = useMutation({
    mutationFn: (query: SavedQuery) =>
      createSavedQuery(api, workspaceId, {
        name: copyName(
          query.name,
          queries.map((q) => q.name),
        ),
        query: query.query,
        filters: query.filters,
      }),
    onSuccess: async (copy) => {
      showToast('success', `Saved “${copy.name}”`);
      await refresh();
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });

  const remove = useMutation({
    mutationFn: (query: SavedQuery) => deleteSavedQuery(api, workspaceId, query.id),
    onSuccess: async (_, query) => {
      setDeleting(null);
      showToast('success', `Deleted “${query.name}”`);
      await refresh();
    },
  });

  const editing = edit && edit !== 'new' ? (queries.find((q) => q.id === edit) ?? null) : null;
  const formOpen = editor && (edit === 'new' ? !full : editing !== null);
  const tracked = trackingId ? (queries.find((q) => q.id === trackingId) ?? null) : null;

  return (
    <PageFrame
      title="Saved queries"
      description="The queries your workspace tracks, each with its dashboards."
      actions={
        <div className="saved-queries-actions">
          <span className={`usage usage-${level}`}>{usageText(usage)}</span>
          <button
            type="button"
            className="button primary"
            disabled={createDisabledBy !== null || formOpen}
            aria-describedby={createDisabledBy?.id}
            title={createDisabledBy?.reason}
            onClick={() => openForm('new')}
          >
            New saved query
          </button>
        </div>
      }
    >
      <div className="notices">
        {!editor ? (
          <p id={VIEWER_REASON_ID} className="notice">
            {VIEWER_REASON}
          </p>
        ) : null}
        {editor && full ? (
          <p id={LIMIT_REASON_ID} className="notice warning">
            {limitReason(usage.limit ?? usage.count)}
          </p>
        ) : null}
        {editor && level === 'warning' ? (
          <p className="notice warning">
            You have used {usage.count} of the {usage.limit} saved queries your plan allows.
          </p>
        ) : null}
        {edit && edit !== 'new' && !editing ? (
          <FormError message="That saved query no longer exists. It may have been deleted." />
        ) : null}
      </div>
      {formOpen ? (
        <SavedQueryForm key={edit} workspaceId={workspaceId} editing={editing} onClose={closeForm} />
      ) : null}
      {tracked ? (
        <TrackingPanel
          key={tracked.id}
          workspaceId={workspaceId}
          query={tracked}
          canEdit={editor}
          timeZone={workspace.time_zone}
          onClose={() => setTrackingId(null)}
        />
      ) : null}
      {queries.length === 0 ? (
        formOpen ? null : (
          <EmptyState
            title="No saved queries yet"
            action={
              editor ? (
                <button type="button" className="button primary" onClick={() => openForm('new')}>
                  Create your first saved query
                </button>
              ) : null
            }
          >
            {editor
              ? 'Save a query to follow its mentions here and open its dashboards in one click.'
              : 'Owners and managers of this workspace can create them; they will appear here.'}
          </EmptyState>
        )
      ) : (
        <SavedQueryList
          workspaceId={workspaceId}
          timeZone={workspace.time_zone}
          queries={queries}
          members={members}
          volume={{ data: volume.data, failed: volume.isError, preparing: isPreparing(volume.failureReason) }}
          editDisabledBy={editDisabledBy}
          duplicateDisabledBy={createDisabledBy}
          duplicating={duplicate.isPending ? duplicate.variables.id : null}
          onEdit={(query) => openForm(query.id)}
          onTracking={(query) => setTrackingId(query.id)}
          onDuplicate={(query) => duplicate.mutate(query)}
          onDelete={(query) => {
            remove.reset();
            setDeleting(query);
          }}
        />
      )}
      {deleting ? (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          Its dashboards go with it. This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </PageFrame>
  );
}
