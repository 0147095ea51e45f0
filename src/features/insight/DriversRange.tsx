// A range of the overview's chart explained as one window: "Explain from [bucket] to [bucket]" picks consecutive
// buckets, and their window runs from the start of the first to the end of the last (SpikeDrivers.tsx). The buckets
// offered are the chart's buckets with posts (and a spike alert's bucket); a range's drill-down lists its posts by
// those buckets, so it takes at most as many as a refinement takes values.
import { useId, useState } from 'react';
import { formatShortDateTime } from '@/lib/date-time';
import type { Refine } from '@contract/insights';

/** A window of the view: its instants, its name, and the refinement that lists its posts (none for the range). */
export interface DriversWindow {
  from: string;
  to: string;
  name: string;
  refine: Refine[];
}

/** Buckets a range takes at most: the values of one date refinement (contract/insights.ts), its drill-down. */
const RANGE_MAX_BUCKETS = 50;

/** The chart's buckets a reader may explain, in the chart's order (each window once). */
export function chartBuckets(
  windows: readonly DriversWindow[],
  others: readonly DriversWindow[],
): DriversWindow[] {
  const byStart = new Map<string, DriversWindow>();
  for (const w of [...windows, ...others]) if (!byStart.has(w.from)) byStart.set(w.from, w);
  return [...byStart.values()].sort((a, b) => Date.parse(a.from) - Date.parse(b.from));
}

const bucketOf = (w: DriversWindow) => {
  const date = w.refine.find((r) => r.field === 'date');
  return date?.field === 'date' ? date.bucket : null;
};

/**
 * The window of the buckets from the one starting at `first` to the one starting at `last` (both included), or null
 * when either is not a bucket of the chart or `last` is before `first`. Hours are named by the window's instants
 * ("3 Nov, 14:00 CET – 3 Nov, 18:00 CET"), days and weeks by the first and the last ("Tue 3 Nov – Thu 5 Nov").
 */
export function rangeWindow(
  buckets: readonly DriversWindow[],
  first: string,
  last: string,
  timeZone: string,
): DriversWindow | null {
  const start = buckets.findIndex((w) => w.from === first);
  const end = buckets.findIndex((w) => w.from === last);
  if (start < 0 || end < start) return null;
  const taken = buckets.slice(start, Math.min(end, start + RANGE_MAX_BUCKETS - 1) + 1);
  const head = taken[0]!;
  const tail = taken[taken.length - 1]!;
  if (head === tail) return head;
  const bucket = bucketOf(head);
  const name =
    bucket === 'hour'
      ? `${formatShortDateTime(head.from, timeZone)} – ${formatShortDateTime(tail.to, timeZone)}`
      : `${head.name} – ${tail.name}`;
  return {
    from: head.from,
    to: tail.to,
    name,
    refine: bucket ? [{ field: 'date', bucket, values: taken.map((w) => w.from) }] : [],
  };
}

/**
 * The buckets with posts a drag from the bucket starting at `first` to the one starting at `last` crossed (the chart's
 * buckets include empty ones): the first and the last of them, at most RANGE_MAX_BUCKETS apart; null for none.
 */
export function crossedRange(buckets: readonly DriversWindow[], first: string, last: string) {
  const [from, to] = [Date.parse(first), Date.parse(last)];
  const taken = buckets
    .filter((w) => Date.parse(w.from) >= from && Date.parse(w.from) <= to)
    .slice(0, RANGE_MAX_BUCKETS);
  return taken.length ? { first: taken[0]!.from, last: taken[taken.length - 1]!.from } : null;
}

/** The "to" buckets a range from `buckets[start]` may end at: itself and the next, up to the most a range takes. */
const endsFrom = (buckets: readonly DriversWindow[], start: number) =>
  start < 0 ? [] : buckets.slice(start, start + RANGE_MAX_BUCKETS);

/**
 * "Explain from [bucket] to [bucket]" and "Why this range". The "to" offers only the buckets at or after the "from"
 * (and at most RANGE_MAX_BUCKETS of them); a "from" moved past the "to" moves the "to" with it, and says so.
 */
export function DriversRangePick({
  buckets,
  initial = null,
  onExplain,
}: {
  buckets: readonly DriversWindow[];
  /** The range chosen at first (a drag across the chart: the picker is made again for it). */
  initial?: { first: string; last: string } | null;
  /** The first and the last bucket of the range, by their starts. */
  onExplain: (first: string, last: string) => void;
}) {
  const [from, setFrom] = useState(initial?.first ?? '');
  const [to, setTo] = useState(initial?.last ?? '');
  const [note, setNote] = useState('');
  const fromId = useId();
  const toId = useId();
  const noteId = useId();
  const start = buckets.findIndex((w) => w.from === from);
  const ends = endsFrom(buckets, start);
  const chooseFrom = (next: string) => {
    setFrom(next);
    const allowed = endsFrom(
      buckets,
      buckets.findIndex((w) => w.from === next),
    );
    if (!next || !allowed.length) {
      setTo('');
      setNote('');
      return;
    }
    if (allowed.some((w) => w.from === to)) {
      setNote('');
      return;
    }
    // No "to" yet: the range is that one bucket until another is chosen.
    const before = !to || Date.parse(to) < Date.parse(next);
    const moved = before ? allowed[0]! : allowed[allowed.length - 1]!;
    setTo(moved.from);
    setNote(
      !to
        ? ''
        : before
          ? `A range cannot end before it starts: it now ends at ${moved.name}.`
          : `A range takes at most ${RANGE_MAX_BUCKETS} buckets with posts: it now ends at ${moved.name}.`,
    );
  };
  return (
    <form
      className="spike-drivers-pick"
      aria-label="Explain a range of the chart"
      onSubmit={(event) => {
        event.preventDefault();
        if (from && to) onExplain(from, to);
      }}
    >
      <label htmlFor={fromId}>Explain from</label>
      <select id={fromId} value={from} onChange={(event) => chooseFrom(event.target.value)}>
        <option value="">Choose…</option>
        {buckets.map((w) => (
          <option key={w.from} value={w.from}>
            {w.name}
          </option>
        ))}
      </select>
      <label htmlFor={toId}>to</label>
      <select
        id={toId}
        value={to}
        disabled={!from}
        aria-describedby={noteId}
        onChange={(event) => {
          setTo(event.target.value);
          setNote('');
        }}
      >
        <option value="">Choose…</option>
        {ends.map((w) => (
          <option key={w.from} value={w.from}>
            {w.name}
          </option>
        ))}
      </select>
      <button type="submit" className="button small" disabled={!from || !to}>
        Why this range
      </button>
      <p id={noteId} role="status" className="small muted spike-drivers-note">
        {note}
      </p>
    </form>
  );
}
