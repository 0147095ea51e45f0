// A saved query's tracking as shown (TrackingPanel.tsx fetches and saves): owners and managers get the "Track" control
// — a switch for tracking and one checkbox a source, each labelled with how far back it reaches — and every member the
// coverage panel, one card a source: tracking since, backfilled back to, posts today, the last post, posts per day (the
// last 14 days that had any), any gap with its reason and span, and the gaps that have ended lately with theirs. Times
// in the workspace's zone.
import { useId, useState } from 'react';
import type { Coverage, PutTrackingBody, TrackingResponse, TrackingSource } from '@contract/tracking';
import { FormError } from '@/components/Field';
import { formatDateTime, formatShortDateTime, formatShortDay } from '@/lib/date-time';

export interface TrackingViewProps {
  queryName: string;
  tracking: TrackingResponse;
  /** The sources set up on this installation. */
  sources: TrackingSource[];
  canEdit: boolean;
  timeZone: string;
  saving: boolean;
  error: string | null;
  onSave: (body: PutTrackingBody) => void;
}

const number = new Intl.NumberFormat();

const GAP_TITLES: Record<NonNullable<Coverage['gap']>['reason'], string> = {
  rate_limited: 'Rate limited',
  quota_spent: 'Quota spent for today',
  credentials_missing: 'Credentials missing',
  unreachable: 'Source unreachable',
  plan_limit: 'Plan limit reached',
  no_search_words: 'Nothing to search for',
  not_collected: 'Not collected yet',
};

function TrackControl(props: TrackingViewProps) {
  const { tracking, sources } = props;
  const [enabled, setEnabled] = useState(tracking.enabled);
  const [chosen, setChosen] = useState<string[]>(tracking.sources);
  const hintId = useId();
  const problem = enabled && chosen.length === 0 ? 'Choose at least one source to track on.' : null;
  // Sources chosen before but no longer set up stay listed, so that saving does not drop them unseen.
  const listed = [
    ...sources,
    ...tracking.sources
      .filter((key) => !sources.some((s) => s.key === key))
      .map((key) => ({ key, label: key, mode: 'poll' as const, reaches_back: 'No longer set up here.' })),
  ];
  const toggle = (key: string, on: boolean) =>
    setChosen((list) => (on ? [...list.filter((k) => k !== key), key] : list.filter((k) => k !== key)));
  return (
    <form
      className="tracking-control"
      aria-label={`Track ${props.queryName}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (problem) return;
        props.onSave({ enabled, sources: listed.map((s) => s.key).filter((key) => chosen.includes(key)) });
      }}
    >
      <label className="tracking-switch">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        Track this query: collect matching posts from the sources below, from now on and as far back as each
        allows
      </label>
      <fieldset className="tracking-sources" aria-describedby={hintId}>
        <legend>Sources</legend>
        <p id={hintId} className="muted small">
          The sources your installation has set up.
        </p>
        {listed.map((source) => (
          <label key={source.key} className="tracking-source">
            <input
              type="checkbox"
              checked={chosen.includes(source.key)}
              onChange={(event) => toggle(source.key, event.target.checked)}
            />
            <span>
              <span className="tracking-source-name">{source.label}</span>{' '}
              <span className="muted small">
                ({source.mode === 'stream' ? 'streamed' : 'polled'}) {source.reaches_back}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {problem ? <p className="field-error">{problem}</p> : null}
      <FormError message={props.error} />
      <div>
        <button type="submit" className="button primary" disabled={props.saving || problem !== null}>
          {props.saving ? 'Saving…' : 'Save tracking'}
        </button>
      </div>
    </form>
  );
}

function When({ at, zone, never }: { at: number | null; zone: string; never: string }) {
  if (at === null) return <span className="muted">{never}</span>;
  return <time dateTime={new Date(at * 1000).toISOString()}>{formatDateTime(at, zone)}</time>;
}

function GapLine({ gap, zone }: { gap: NonNullable<Coverage['gap']>; zone: string }) {
  return (
    <p className="notice warning tracking-gap" role="status">
      <strong>{GAP_TITLES[gap.reason]}</strong>: {gap.message} Since {formatShortDateTime(gap.since, zone)}
      {gap.until !== null ? `, until ${formatShortDateTime(gap.until, zone)}` : ''}.
    </p>
  );
}

/** The gaps that have ended (the last 14 days): what was not collected, why, and from when to when. */
function ClosedGaps({ coverage, zone }: { coverage: Coverage; zone: string }) {
  const gaps = coverage.closed_gaps ?? [];
  if (gaps.length === 0) return null;
  return (
    <>
      <h5>Earlier gaps</h5>
      <ul className="tracking-closed-gaps small" aria-label={`Earlier gaps on ${coverage.label}`}>
        {gaps.map((gap) => (
          <li key={`${gap.since}:${gap.ended}:${gap.reason}`}>
            <strong>{GAP_TITLES[gap.reason]}</strong>: {gap.message} From{' '}
            {formatShortDateTime(gap.since, zone)} to {formatShortDateTime(gap.ended, zone)}.
          </li>
        ))}
      </ul>
    </>
  );
}

/** The plan's tracking limits against the workspace's use, said before they bite (a warning from 80 %). */
function TrackingLimits({ limits }: { limits: NonNullable<TrackingResponse['limits']> }) {
  const line = (label: string, { used, limit }: { used: number; limit: number | null }, full: string) => {
    const near = limit !== null && used >= Math.ceil(limit * 0.8);
    return (
      <li className={near ? 'usage-warning' : undefined}>
        {label}: {number.format(used)}
        {limit === null ? ' (no limit)' : ` of ${number.format(limit)}`}
        {limit !== null && used >= limit ? ` — ${full}` : near ? ' — close to the limit' : ''}
      </li>
    );
  };
  return (
    <ul className="tracking-limits small" aria-label={`The ${limits.plan} plan's tracking limits`}>
      {line('Tracked queries in this workspace', limits.tracked_queries, 'no more can be tracked')}
      {line(
        'Posts collected this month',
        limits.posts_collected_per_month,
        'collection is paused until next month; nothing collected is lost',
      )}
    </ul>
  );
}

/** Posts collected per UTC day, the last 14 days that had any, oldest first; days without any are left out. */
function PerDay({ coverage }: { coverage: Coverage }) {
  if (coverage.per_day.length === 0) return <span className="muted">None in the last 14 days</span>;
  return (
    <ol
      className="tracking-per-day small"
      aria-label={`Posts collected per day on ${coverage.label}, the last 14 days (UTC)`}
    >
      {coverage.per_day.map(({ day, posts }) => (
        <li key={day}>
          <time dateTime={day}>{formatShortDay(day, 'UTC')}</time>: {number.format(posts)}
        </li>
      ))}
    </ol>
  );
}

function CoverageCard({ coverage, zone }: { coverage: Coverage; zone: string }) {
  return (
    <section className="tracking-coverage-card" aria-label={`Coverage on ${coverage.label}`}>
      <h4>{coverage.label}</h4>
      <dl className="tracking-coverage">
        <dt>Tracking since</dt>
        <dd>
          <When at={coverage.tracking_since} zone={zone} never="Not yet" />
        </dd>
        <dt>Backfilled back to</dt>
        <dd>
          <When at={coverage.backfilled_to} zone={zone} never="Not yet (the first search is due)" />
        </dd>
        <dt>Posts today</dt>
        <dd>{number.format(coverage.posts_today)}</dd>
        <dt>Last post</dt>
        <dd>
          <When at={coverage.last_post_at} zone={zone} never="None yet" />
        </dd>
        <dt>Posts per day</dt>
        <dd>
          <PerDay coverage={coverage} />
        </dd>
      </dl>
      {coverage.gap ? <GapLine gap={coverage.gap} zone={zone} /> : <p className="muted small">No gap.</p>}
      <ClosedGaps coverage={coverage} zone={zone} />
    </section>
  );
}

export function TrackingView(props: TrackingViewProps) {
  const { tracking, timeZone } = props;
  return (
    <div className="tracking-view">
      {props.canEdit ? (
        <TrackControl key={`${tracking.enabled}:${tracking.sources.join(',')}`} {...props} />
      ) : (
        <p className="muted">
          {tracking.enabled
            ? `Tracked on ${tracking.coverage.map((c) => c.label).join(', ')}.`
            : 'Not tracked.'}{' '}
          Only owners and managers can change what a saved query tracks.
        </p>
      )}
      {tracking.limits ? <TrackingLimits limits={tracking.limits} /> : null}
      <h3>Coverage</h3>
      {tracking.coverage.length === 0 ? (
        <p className="muted">No source is tracked for this query yet.</p>
      ) : (
        <div className="tracking-coverage-list">
          {tracking.coverage.map((coverage) => (
            <CoverageCard key={coverage.source} coverage={coverage} zone={timeZone} />
          ))}
        </div>
      )}
    </div>
  );
}
