// "Why this spike": under the overview's mentions chart, a button per spike bucket opening what accounts for its posts
// beyond its baseline (POST /social/insights/drivers, counted exactly: server/social/insights/drivers.ts); and on the
// conversation dashboard, the same for the whole range. Each driver opens its posts of that window; the first
// driver's top posts are listed.
import { useId, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Refine } from '@contract/insights';
import type { OverviewResponse } from '@contract/insights-responses';
import { driverRefine, driversSentence, type Driver, type DriversResponse } from '@contract/insights-drivers';
import { driversQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import { useApp } from '@/components/use-app';
import { PostCard } from '@/components/PostCard';
import { Counted } from './ChartCard';
import { useDetailLinks } from './DetailLinks';
import { formatDecimal, formatShare, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';

/** The first driver's posts: its words are not the view's query's to mark. */
const NO_PATTERNS: readonly string[] = [];

const KIND_NAMES: Record<Driver['kind'], string> = {
  term: 'Word',
  hashtag: 'Hashtag',
  mention: 'Mention',
  author: 'Author',
  domain: 'Link domain',
  platform: 'Platform',
  language: 'Language',
  sentiment: 'Sentiment',
};

/** A window of the view: its instants, its name, and the refinement that lists its posts (none for the range). */
export interface DriversWindow {
  from: string;
  to: string;
  name: string;
  refine: Refine[];
}

/** The `why` param (a spike alert's link) as a bucket's start (ISO, as over_time gives it), or null. */
export function whyOf(search: Record<string, unknown>): string | null {
  const { why } = search;
  return typeof why === 'string' && !Number.isNaN(Date.parse(why)) ? new Date(why).toISOString() : null;
}

/**
 * The overview's buckets as windows: each its bucket, up to the next bucket's start (the range's end for the last).
 * `spikes`: the spikes and the bucket `why` names; `others`: any other bucket with posts, explained on request.
 */
export function bucketWindows(
  data: Pick<OverviewResponse, 'over_time' | 'range' | 'bucket'>,
  why: string | null,
  name: (row: OverviewResponse['over_time'][number]) => string,
) {
  const spikes: DriversWindow[] = [];
  const others: DriversWindow[] = [];
  data.over_time.forEach((row, i) => {
    const window: DriversWindow = {
      from: row.start,
      to: data.over_time[i + 1]?.start ?? data.range.to,
      name: name(row),
      refine: [{ field: 'date', bucket: data.bucket, values: [row.start] }],
    };
    if (row.spike || row.start === why) spikes.push(window);
    else if (row.mentions > 0) others.push(window);
  });
  return { spikes, others };
}

/** The spikes of a chart's buckets, each a button that opens its drivers below. */
export function SpikeDrivers({
  windows,
  prompt = 'Why this spike',
  dashboard = 'overview',
  opened = null,
  others = [],
}: {
  windows: DriversWindow[];
  /** Any other window a reader may pick (every bucket of the chart with posts), asked as "Why this bucket". */
  others?: DriversWindow[];
  /** The window open at first (a spike alert's link), by its start. */
  opened?: string | null;
  prompt?: string;
  /** Where a post's page goes back to. */
  dashboard?: 'overview' | 'conversation';
}) {
  const readOnly = useReadOnly();
  const [open, setOpen] = useState<string | null>(opened);
  const [pick, setPick] = useState('');
  const pickId = useId();
  if (readOnly || (!windows.length && !others.length)) return null;
  const spike = windows.find((w) => w.from === open);
  const other = spike ? undefined : others.find((w) => w.from === open);
  const chosen = spike ?? other;
  const title = chosen && `${spike ? prompt : 'Why this bucket'}: ${chosen.name}`;
  return (
    <div className="spike-drivers">
      {others.length > 0 && (
        <form
          className="spike-drivers-pick"
          onSubmit={(event) => {
            event.preventDefault();
            if (pick) setOpen(pick);
          }}
        >
          <label htmlFor={pickId}>Explain a bucket</label>
          <select id={pickId} value={pick} onChange={(event) => setPick(event.target.value)}>
            <option value="">Choose…</option>
            {others.map((w) => (
              <option key={w.from} value={w.from}>
                {w.name}
              </option>
            ))}
          </select>
          <button type="submit" className="button small" disabled={!pick}>
            Why this bucket
          </button>
        </form>
      )}
      {windows.length > 0 && (
        <div className="spike-drivers-buttons" role="group" aria-label={prompt}>
          {windows.map((w) => (
            <button
              key={w.from}
              type="button"
              className="button small"
              aria-expanded={open === w.from}
              onClick={() => setOpen(open === w.from ? null : w.from)}
            >
              {prompt}: {w.name}
            </button>
          ))}
        </div>
      )}
      {chosen && title && (
        <DriversPanel key={chosen.from} window={chosen} title={title} dashboard={dashboard} />
      )}
    </div>
  );
}

/** The drivers of one window: a sentence, the ranked table (each a drill-down), the first driver's top posts. */
function DriversPanel({
  window,
  title,
  dashboard,
}: {
  window: DriversWindow;
  title: string;
  dashboard: 'overview' | 'conversation';
}) {
  const { api } = useApp();
  const { body, drill, timeZone } = useInsightView();
  const links = useDetailLinks(dashboard);
  const request = useMemo(
    () => ({ ...body, filters: { ...body.filters, from: window.from, to: window.to } }),
    [body, window.from, window.to],
  );
  const result = useQuery(driversQuery(api, request));
  const open = (driver: Driver) => drill([...window.refine, driverRefine(driver)]);
  return (
    <section className="drivers-panel" aria-label={title} aria-busy={result.isPending}>
      <h3>{title}</h3>
      {result.isPending ? (
        <p role="status" className="muted">
          Counting the posts of this window and of its baseline…
        </p>
      ) : result.isError ? (
        <p role="alert" className="form-error">
          {apiProblem(result.error).message}
        </p>
      ) : (
        <DriversAnswer data={result.data} open={open} timeZone={timeZone} links={links} />
      )}
    </section>
  );
}

function DriversAnswer({
  data,
  open,
  timeZone,
  links,
}: {
  data: DriversResponse;
  open: (driver: Driver) => void;
  timeZone: string;
  links: ReturnType<typeof useDetailLinks>;
}) {
  const first = data.drivers[0];
  return (
    <>
      <p className="drivers-sentence">{driversSentence(data)}</p>
      <p className="small muted">
        {formatWhole(data.posts.window)} posts in this window; {formatDecimal(data.posts.expected)} expected
        from{' '}
        {data.baseline.kind === 'same_hours'
          ? `the same hours of the ${data.baseline.windows.length} days before`
          : 'the range of equal length before'}{' '}
        ({formatWhole(data.posts.baseline)} posts there).
      </p>
      {data.drivers.length ? (
        <div className="table-wrap">
          <table className="table data-table drivers-table">
            <caption className="visually-hidden">Drivers, highest G² first</caption>
            <thead>
              <tr>
                <th scope="col">Driver</th>
                <th scope="col">What</th>
                <th scope="col" className="numeric">
                  Posts
                </th>
                <th scope="col" className="numeric">
                  Expected
                </th>
                <th scope="col" className="numeric">
                  Lift
                </th>
                <th scope="col" className="numeric">
                  Share of the excess
                </th>
                <th scope="col" className="numeric">
                  G²
                </th>
              </tr>
            </thead>
            <tbody>
              {data.drivers.map((d) => (
                <tr key={`${d.kind}:${d.value}`}>
                  <th scope="row">
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => open(d)}
                      aria-label={`Posts of this window with ${d.label}`}
                    >
                      {d.label}
                    </button>
                  </th>
                  <td>{KIND_NAMES[d.kind]}</td>
                  <td className="numeric">
                    {formatWhole(d.posts)} <span className="muted">({formatShare(d.share)})</span>
                  </td>
                  <td className="numeric">{formatDecimal(d.expected)}</td>
                  <td className="numeric">{d.lift === null ? 'new' : `×${formatDecimal(d.lift)}`}</td>
                  <td className="numeric">{formatShare(d.excess_share)}</td>
                  <td className="numeric">{formatDecimal(d.g2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="muted">
          No value is in at least 3 posts of this window and more common in it than in its baseline.
        </p>
      )}
      {first && data.top_posts.length > 0 && (
        <>
          <h4>Posts with {first.label} that carried the most of it</h4>
          <ol className="top-posts">
            {data.top_posts.map((post) => (
              <li key={post.id}>
                <PostCard post={post} timeZone={timeZone} patterns={NO_PATTERNS} links={links} compact />
              </li>
            ))}
          </ol>
        </>
      )}
      <Counted sentence={data.counted} />
    </>
  );
}
