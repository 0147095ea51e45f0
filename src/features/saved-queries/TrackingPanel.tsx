// The tracking of one saved query on the saved queries screen: its coverage for every member, and the "Track"
// control for owners and managers (TrackingView.tsx). Saving answers with the tracking as stored.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SavedQuery } from '@contract/saved-queries';
import type { PutTrackingBody } from '@contract/tracking';
import { putTracking, trackingQuery, trackingSourcesQuery } from '@/api/tracking';
import { apiProblem } from '@/api/errors';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { TrackingView } from './TrackingView';

export interface TrackingPanelProps {
  workspaceId: string;
  query: SavedQuery;
  canEdit: boolean;
  timeZone: string;
  onClose: () => void;
}

export function TrackingPanel({ workspaceId, query, canEdit, timeZone, onClose }: TrackingPanelProps) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const tracking = useQuery(trackingQuery(api, workspaceId, query.id));
  const sources = useQuery({ ...trackingSourcesQuery(api, workspaceId), enabled: canEdit });
  const save = useMutation({
    mutationFn: (body: PutTrackingBody) => putTracking(api, workspaceId, query.id, body),
    onSuccess: (stored) => {
      queryClient.setQueryData(trackingQuery(api, workspaceId, query.id).queryKey, stored);
      showToast('success', stored.enabled ? `Tracking “${query.name}”` : `Stopped tracking “${query.name}”`);
    },
  });
  const failed = tracking.error ?? (canEdit ? sources.error : null);
  return (
    <section className="tracking-panel" aria-labelledby={`tracking-${query.id}`}>
      <div className="tracking-panel-head">
        <h2 id={`tracking-${query.id}`}>Tracking “{query.name}”</h2>
        <button type="button" className="button small" onClick={onClose}>
          Close
        </button>
      </div>
      {failed ? (
        <FormError message={apiProblem(failed).message} />
      ) : !tracking.data || (canEdit && !sources.data) ? (
        <p className="muted">Loading…</p>
      ) : (
        <TrackingView
          queryName={query.name}
          tracking={tracking.data}
          sources={sources.data?.sources ?? []}
          canEdit={canEdit}
          timeZone={timeZone}
          saving={save.isPending}
          error={save.isError ? apiProblem(save.error).message : null}
          onSave={(body) => save.mutate(body)}
        />
      )}
    </section>
  );
}
