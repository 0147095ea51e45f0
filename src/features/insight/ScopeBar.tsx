// The scope bar on every dashboard: which posts (a saved query, discover's query, or every post), the date range
// (presets or custom days of the workspace's zone, which it names), platforms and languages; below it the drill-down
// refinements as chips. Each change is a new address (so back restores the view before it).
import { ShareReadOnly } from './ShareReadOnly';
import { useId, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { WorkspaceLanguage } from '@contract/workspaces';
import { savedQueriesQuery } from '@/api/saved-queries';
import { PlatformLanguageChoices } from '@/components/CheckboxGroup';
import { CopyField } from '@/components/CopyField';
import { useApp } from '@/components/use-app';
import { languageLabel } from '@/lib/languages';
import { platformName } from '@/lib/platforms';
import { showToast } from '@/lib/toast';
import { dayIn } from '@contract/zoned-time';
import { RANGE_LABELS, RANGE_PRESETS, type RangePreset } from './insight-search';
import { useInsightView } from './insight-view';
import { RefineChips } from './RefineChips';
import { SavedQueryOptions } from './SavedQueryOptions';

const ALL_POSTS = '';
const DISCOVER = 'discover';

/** `query`: the "Posts" picker (false on Compare, which picks several saved queries of its own). */
export function ScopeBar({ query = true }: { query?: boolean }) {
  const { api } = useApp();
  const view = useInsightView();
  const { scope, setScope, workspaceId, timeZone } = view;
  const saved = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data.saved_queries;
  const selected = saved.find((query) => query.id === scope.savedQueryId) ?? null;
  const id = useId();
  const filterCount = scope.platforms.length + scope.languages.length;

  const picked = scope.savedQueryId ?? (scope.q ? DISCOVER : ALL_POSTS);
  const pick = (value: string) => {
    if (value === ALL_POSTS) setScope({ savedQueryId: null, q: '' });
    else if (value !== DISCOVER) setScope({ savedQueryId: value, q: '' });
  };

  const changeRange = (range: RangePreset) => {
    if (range !== 'custom') return setScope({ range, end: null, from: null, to: null });
    // Custom starts from the last 7 whole days of the workspace's zone, ready to be changed.
    const today = dayIn(new Date(), timeZone);
    const weekAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    setScope({ range, end: null, from: weekAgo, to: today });
  };

  return (
    <div className="scope-bar">
      <div className="scope-row">
        {query ? (
          <div className="field">
            <label htmlFor={`${id}-query`}>Posts</label>
            <select
              id={`${id}-query`}
              className="input compact"
              value={picked}
              onChange={(event) => pick(event.target.value)}
            >
              <option value={ALL_POSTS}>Every post</option>
              {scope.q && !scope.savedQueryId ? (
                <option value={DISCOVER}>Discover query: {truncate(scope.q, 60)}</option>
              ) : null}
              <SavedQueryOptions queries={saved} />
            </select>
          </div>
        ) : null}
        <div className="field">
          <label htmlFor={`${id}-range`}>Date range</label>
          <select
            id={`${id}-range`}
            className="input compact"
            value={scope.range}
            onChange={(event) => changeRange(event.target.value as RangePreset)}
          >
            {RANGE_PRESETS.map((range) => (
              <option key={range} value={range}>
                {RANGE_LABELS[range]}
              </option>
            ))}
          </select>
        </div>
        {scope.range === 'custom' ? (
          <CustomDays
            key={`${scope.from}|${scope.to}`}
            from={scope.from ?? ''}
            to={scope.to ?? ''}
            onApply={(from, to) => setScope({ from, to })}
          />
        ) : null}
        <ShareView />
        <p className="scope-zone small muted">
          Days and hours in <strong>{timeZone}</strong>
          {scope.end ? (
            <>
              {' · '}
              <button type="button" className="link-button" onClick={() => setScope({ end: null })}>
                Move the range to now
              </button>
            </>
          ) : null}
        </p>
      </div>
      <details className="scope-filters">
        <summary>Filters{filterCount ? ` (${filterCount})` : ''}</summary>
        {selected && (selected.filters.platforms?.length || selected.filters.languages?.length) ? (
          <p className="small muted">
            “{selected.name}” keeps its own filters (
            {[
              ...(selected.filters.platforms ?? []).map(platformName),
              ...(selected.filters.languages ?? []).map((code) => languageLabel(code as WorkspaceLanguage)),
            ].join(', ')}
            ); a choice here replaces them.
          </p>
        ) : null}
        <div className="scope-filter-groups">
          <PlatformLanguageChoices
            platforms={scope.platforms}
            languages={scope.languages}
            onPlatforms={(platforms) => setScope({ platforms })}
            onLanguages={(languages) => setScope({ languages })}
          />
        </div>
      </details>
      {!saved.length && !scope.q ? (
        <p className="small muted">
          Every post of the corpus is shown.{' '}
          <Link to="/workspace/$workspaceId/saved-queries" params={{ workspaceId }}>
            Save a query
          </Link>{' '}
          to follow a topic, brand or campaign.
        </p>
      ) : null}
      <RefineChips />
    </div>
  );
}

const truncate = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, length - 1)}…` : text;

/** Two day fields; the range changes once both are valid days in order (the address checks the 400-day limit). */
function CustomDays({
  from,
  to,
  onApply,
}: {
  from: string;
  to: string;
  onApply: (from: string, to: string) => void;
}) {
  const [draft, setDraft] = useState({ from, to });
  const id = useId();
  const ordered = draft.from && draft.to && draft.from <= draft.to;
  const apply = (next: { from: string; to: string }) => {
    setDraft(next);
    if (next.from && next.to && next.from <= next.to && (next.from !== from || next.to !== to)) {
      onApply(next.from, next.to);
    }
  };
  return (
    <div className="scope-days">
      <div className="field">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          type="date"
          className="input compact"
          value={draft.from}
          max={draft.to || undefined}
          onChange={(event) => apply({ ...draft, from: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To (included)</label>
        <input
          id={`${id}-to`}
          type="date"
          className="input compact"
          value={draft.to}
          min={draft.from || undefined}
          onChange={(event) => apply({ ...draft, to: event.target.value })}
          aria-invalid={!ordered || undefined}
        />
      </div>
      {!ordered ? (
        <p className="field-error small" role="alert">
          The first day must not be after the last.
        </p>
      ) : null}
    </div>
  );
}

/**
 * "Copy link": the address of this view with its range's end pinned (a preset ends "now", which would move by the
 * time a colleague opens it), so the link shows exactly these figures. Where the clipboard is blocked the link is
 * shown to copy by hand.
 */
function ShareView() {
  const { body, scope } = useInsightView();
  const [manual, setManual] = useState<string | null>(null);
  const share = async () => {
    const url = new URL(window.location.href);
    if (scope.range !== 'custom' && body.filters?.to) url.searchParams.set('end', body.filters.to);
    try {
      if (!navigator.clipboard) throw new Error('Clipboard unavailable');
      await navigator.clipboard.writeText(url.href);
      setManual(null);
      showToast('success', 'Link to this view copied');
    } catch {
      setManual(url.href);
    }
  };
  return (
    <div className="scope-share">
      <button type="button" className="button small" onClick={() => void share()}>
        Copy link to this view
      </button>
      <ShareReadOnly />
      {manual ? (
        <CopyField
          label="Link to this view"
          value={manual}
          hint="Copying is blocked here: copy it by hand."
        />
      ) : null}
    </div>
  );
}
