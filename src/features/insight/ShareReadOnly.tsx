// "Share or export…" in the scope bar: "Download PDF report" (any member: the view printed on the server,
// server/sharing/report.ts) and a read-only link (owners and managers) to this view that anyone can open without
// signing in, until it expires (7 days to a year) or is revoked in Settings › Share links. The range stays as shown,
// or, "rolling", keeps its length and ends when the link is opened; an optional name tells it from other links to the
// same view in Settings › Share links. The link is shown once, to copy. On Compare, its saved queries and range are
// what is shared (share-target.ts).
import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouterState } from '@tanstack/react-router';
import { INSIGHT_DASHBOARDS, type Dashboard } from '@contract/insights-dashboards';
import { SHARE_LINK_NAME_MAX, type CompareView, type SharedView } from '@contract/share-links';
import { apiProblem } from '@/api/errors';
import { workspaceQuery } from '@/api/queries';
import { createShareLink, shareLinksQuery } from '@/api/share-links';
import { CopyField } from '@/components/CopyField';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { saveFile } from '@/lib/save-file';
import { showToast } from '@/lib/toast';
import { useInsightView } from './insight-view';
import { useCompareShare } from './share-target';

const EXPIRIES = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: 'a year' },
] as const;

/** What a link or a report of this page shows. */
type ShareTarget = { dashboard: Dashboard; view: SharedView } | { dashboard: 'compare'; view: CompareView };

/** The dashboard of the address and its view, or Compare's, when it is one a link can show. */
function useShareTarget(): ShareTarget | null {
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const { body } = useInsightView();
  const compare = useCompareShare();
  const last = pathname.split('/').at(-1) ?? '';
  if (last === 'compare') return compare ? { dashboard: 'compare', view: compare } : null;
  if (!(last in INSIGHT_DASHBOARDS)) return null;
  const { workspace_id: _workspace, ...view } = body;
  return { dashboard: last as Dashboard, view };
}

/** The view as a PDF report, printed on the server (any member). */
function ReportButton({ target }: { target: ShareTarget }) {
  const { api } = useApp();
  const { workspaceId } = useInsightView();
  const { dashboard } = target;
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const file = await api.downloadSocial(
        'insights/report',
        { workspace_id: workspaceId, ...target },
        `murmur-${dashboard}.pdf`,
        undefined,
        'application/pdf',
      );
      saveFile(file.name, file.blob);
    } catch (error) {
      showToast('error', `The report could not be made: ${apiProblem(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      className="button small"
      onClick={() => void download()}
      disabled={busy}
      aria-busy={busy}
    >
      {busy ? 'Making the PDF…' : 'Download PDF report'}
    </button>
  );
}

export function ShareReadOnly() {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const { workspaceId } = useInsightView();
  const workspace = useQuery(workspaceQuery(api, workspaceId)).data;
  const target = useShareTarget();
  const [open, setOpen] = useState(false);
  const [days, setDays] = useState(30);
  const [rolling, setRolling] = useState(false);
  const [name, setName] = useState('');
  const panelId = useId();
  const make = useMutation({
    mutationFn: () =>
      createShareLink(api, workspaceId, {
        ...(name.trim() && { name: name.trim() }),
        ...target!,
        rolling,
        expires_in_days: days,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: shareLinksQuery(api, workspaceId).queryKey }),
  });
  if (!target) return null;
  const canShare = workspace?.privilege === 'owner' || workspace?.privilege === 'manager';
  const url = make.data ? `${window.location.origin}/shared#token=${make.data.token}` : null;
  // One button in the scope bar, so the bar keeps its height: its panel has the report and, for owners and
  // managers, the read-only link.
  return (
    <div className="share-view">
      <button
        type="button"
        className="button small"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => {
          setOpen((o) => !o);
          make.reset();
          setName('');
        }}
      >
        Share or export…
      </button>
      {open ? (
        <section id={panelId} className="share-panel" aria-label="Share or export this view">
          <ReportButton target={target} />
          {!canShare ? (
            <p className="small muted">Owners and managers can also share this view as a read-only link.</p>
          ) : url ? (
            <>
              <CopyField
                label="Read-only link"
                value={url}
                hint="Anyone with this link sees this view, without signing in. It is shown only now."
              />
              <p className="small muted">
                Revoke it any time in Settings › Share links. It expires in{' '}
                {EXPIRIES.find((e) => e.days === days)?.label}.
              </p>
            </>
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                make.mutate();
              }}
            >
              <p className="small">
                Anyone with the link sees this view only — its figures, charts and posts — without signing in.
                It counts against the workspace&apos;s monthly dashboard volume.
              </p>
              <div className="field">
                <label htmlFor={`${panelId}-name`}>Name (optional)</label>
                <input
                  id={`${panelId}-name`}
                  className="input"
                  value={name}
                  maxLength={SHARE_LINK_NAME_MAX}
                  aria-describedby={`${panelId}-name-hint`}
                  onChange={(event) => setName(event.target.value)}
                />
                <p id={`${panelId}-name-hint`} className="small muted">
                  Shown in Settings › Share links, to tell this link from others to the same view.
                </p>
              </div>
              <div className="field">
                <label htmlFor={`${panelId}-expiry`}>Expires in</label>
                <select
                  id={`${panelId}-expiry`}
                  className="input"
                  value={days}
                  onChange={(event) => setDays(Number(event.target.value))}
                >
                  {EXPIRIES.map((e) => (
                    <option key={e.days} value={e.days}>
                      {e.label}
                    </option>
                  ))}
                </select>
              </div>
              <label className="choice">
                <input
                  type="checkbox"
                  checked={rolling}
                  onChange={(event) => setRolling(event.target.checked)}
                />
                Rolling range: as long as this one, ending when the link is opened
              </label>
              {make.isError ? <FormError message={apiProblem(make.error).message} /> : null}
              <button type="submit" className="button primary" disabled={make.isPending}>
                {make.isPending ? 'Making the link…' : 'Make read-only link'}
              </button>
            </form>
          )}
        </section>
      ) : null}
    </div>
  );
}
