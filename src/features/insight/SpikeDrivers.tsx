// "Why this spike": under the overview's mentions chart, a button per spike bucket opening what accounts for its posts
// beyond its baseline (POST /social/insights/drivers, counted exactly: server/social/insights/drivers.ts), and any
// range of the chart's buckets explained the same way (DriversRange.tsx); on the conversation dashboard, the same for
// the whole range. Each driver opens its posts of that window; the first driver's top posts are listed.
import { useImperativeHandle, useMemo, useState, type Ref } from 'react';
import * as z from 'zod/mini';
import { useQuery } from '@tanstack/react-query';
import type { OverviewResponse } from '@contract/insights-responses';
import { driverRefine, driversSentence, type Driver, type DriversResponse } from '@contract/insights-drivers';
import { driversQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import { useApp } from '@/components/use-app';
import { PostCard } from '@/components/PostCard';
import { Counted } from './ChartCard';
import { useDetailLinks } from './DetailLinks';
import { formatDecimal, formatShare, formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import {
  chartBuckets,
  crossedRange,
  DriversRangePick,
  rangeWindow,
  type DriversWindow,
} from './DriversRange';
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

/**
 * What the overview's `why` param names: a bucket by its start (`why=<start>`, a spike alert's link), or a range of
 * the chart (`why=<from>/<to>`, ISO 8601 instants): the buckets starting at or after `from` and before `to`.
 */
export interface Why {
  from: string;
  /** The range's end; null for one bucket. */
  to: string | null;
}

const isoInstant = z.iso.datetime({ offset: true });
const instantOf = (text: string | undefined) =>
  text !== undefined && z.safeParse(isoInstant, text).success ? new Date(text).toISOString() : null;

/** The `why` param, or null when there is none or it is not one of its two forms (it is then ignored). */
export function whyOf(search: Record<string, unknown>): Why | null {
  const { why } = search;
  if (typeof why !== 'string') return null;
  const [head, tail, ...rest] = why.split('/');
  const from = instantOf(head);
  if (!from || rest.length) return null;
  if (tail === undefined) return { from, to: null };
  const to = instantOf(tail);
  return to && Date.parse(to) > Date.parse(from) ? { from, to } : null;
}

const whyParam = (why: Why) => (why.to ? `${why.from}/${why.to}` : why.from);

/**
 * The overview's buckets as windows: each its bucket, up to the next bucket's start (the range's end for the last).
 * `spikes`: the spikes and the bucket `why` names; `others`: any other bucket with posts, explained on request.
 */
export function bucketWindows(
  data: Pick<OverviewResponse, 'over_time' | 'range' | 'bucket'>,
  why: Why | null,
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
    if (row.spike || (why?.to === null && row.start === why.from)) spikes.push(window);
    else if (row.mentions > 0) others.push(window);
  });
  return { spikes, others };
}

/**
 * What the overview's mentions chart asks of "Why this spike": `explainRange(first, last)` — a drag across the chart
 * crossed the buckets starting at `first` to `last` (bucket starts, as over_time gives them); those with posts fill
 * "Explain from … to …" and are explained at once. Wired as
 * `chart={{ …, onBrush: (a, b) => drivers.current?.explainRange(a.start, b.start) }}` and `<SpikeDrivers ref={drivers} …>`.
 */
export interface SpikeDriversHandle {
  explainRange: (first: string, last: string) => void;
}

/** What is open: the first and the last bucket of it, by their starts (the same for one bucket or window). */
interface Opened {
  first: string;
  last: string;
}

/** The buckets a `why` names, when the chart has them. */
function openedOf(why: Why | null, buckets: readonly DriversWindow[]): Opened | null {
  if (!why) return null;
  if (why.to === null) return { first: why.from, last: why.from };
  const [from, to] = [Date.parse(why.from), Date.parse(why.to)];
  const within = buckets.filter((w) => Date.parse(w.from) >= from && Date.parse(w.from) < to);
  return within.length ? { first: within[0]!.from, last: within[within.length - 1]!.from } : null;
}

/**
 * The spikes of a chart's buckets, each a button that opens its drivers below, and (given `others`) any range of its
 * buckets. On the overview what is open is in the address (`why`), so a copied link opens it again.
 */
export function SpikeDrivers({
  windows,
  prompt = 'Why this spike',
  dashboard = 'overview',
  opened = null,
  others = [],
  ref,
}: {
  windows: DriversWindow[];
  /** Any other window a reader may pick (every bucket of the chart with posts), asked as a range of them. */
  others?: DriversWindow[];
  /** What is open at first (a spike alert's link, a copied link): the address's `why`. */
  opened?: Why | null;
  prompt?: string;
  /** Where a post's page goes back to. */
  dashboard?: 'overview' | 'conversation';
  /** The chart's way in: a drag across it (ChartCard's `chart.onBrush`) explains the buckets it crossed. */
  ref?: Ref<SpikeDriversHandle>;
}) {
  const readOnly = useReadOnly();
  const { timeZone } = useInsightView();
  const updateSearch = useSearchUpdate();
  const buckets = chartBuckets(windows, others);
  const [open, setOpen] = useState(() => openedOf(opened, buckets));
  // The address changed under the panel (back, forward, a link): what it names opens.
  const openedKey = opened ? whyParam(opened) : '';
  const [seen, setSeen] = useState(openedKey);
  if (seen !== openedKey) {
    setSeen(openedKey);
    setOpen(openedOf(opened, buckets));
  }
  const explained = (at: Opened | null) => {
    if (!at) return null;
    const spike = at.first === at.last ? windows.find((w) => w.from === at.first) : undefined;
    if (spike)
      return { window: spike, title: `${prompt}: ${spike.name}`, why: { from: spike.from, to: null } };
    const window = rangeWindow(buckets, at.first, at.last, timeZone);
    if (!window) return null;
    const title = at.first === at.last ? `Why this bucket: ${window.name}` : `Why ${window.name}`;
    return { window, title, why: { from: window.from, to: window.to } };
  };
  const choose = (next: Opened | null) => {
    setOpen(next);
    if (dashboard !== 'overview') return;
    const why = explained(next)?.why;
    updateSearch((previous) => ({ ...previous, why: why ? whyParam(why) : undefined }), { replace: true });
  };
  const [picked, setPicked] = useState<{ at: Opened; key: number } | null>(null);
  useImperativeHandle(ref, () => ({
    explainRange: (firstStart, lastStart) => {
      const at = crossedRange(buckets, firstStart, lastStart);
      if (!at) return;
      setPicked((before) => ({ at, key: (before?.key ?? 0) + 1 }));
      choose(at);
    },
  }));
  if (readOnly || (!windows.length && !others.length)) return null;

  const chosen = explained(open);
  const isOpen = (w: DriversWindow) => open?.first === w.from && open.last === w.from;
  return (
    <div className="spike-drivers">
      {others.length > 0 && (
        <DriversRangePick
          key={picked?.key ?? 0}
          buckets={buckets}
          initial={picked?.at}
          onExplain={(first, last) => choose({ first, last })}
        />
      )}
      {windows.length > 0 && (
        <div className="spike-drivers-buttons" role="group" aria-label={prompt}>
          {windows.map((w) => (
            <button
              key={w.from}
              type="button"
              className="button small"
              aria-expanded={isOpen(w)}
              onClick={() => choose(isOpen(w) ? null : { first: w.from, last: w.from })}
            >
              {prompt}: {w.name}
            </button>
          ))}
        </div>
      )}
      {chosen && (
        <DriversPanel
          key={`${chosen.window.from}/${chosen.window.to}`}
          window={chosen.window}
          title={chosen.title}
          dashboard={dashboard}
        />
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
