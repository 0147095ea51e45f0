// The collection gaps of the overview's saved query when it is tracked (its coverage: GET …/tracking), open and ended
// (those of the last 14 days the coverage keeps): said under the mentions chart, and the buckets they span marked on it
// and in its table (inGap), so a dip the collection made is not read as a dip in the conversation. Only those that
// overlap the view's range (inRange). Nothing when the view is not of a tracked saved query, or its coverage cannot be
// read.
import { useQuery } from '@tanstack/react-query';
import type { Coverage, TrackingResponse } from '@contract/tracking';
import { trackingQuery } from '@/api/tracking';
import { useApp } from '@/components/use-app';
import { formatShortDateTime } from '@/lib/date-time';

export interface CollectionGap {
  label: string;
  message: string;
  /** Unix seconds. */
  since: number;
  until: number | null;
  /** An ended gap: `until` is when the source answered again, not when it is expected to. */
  ended?: boolean;
}

/**
 * The gaps of a tracked query's coverage, by source: each source's open gap (but "not collected", a source this
 * installation does not collect from, which is no span of missing posts), then its ended ones. Empty when off.
 */
function collectionGapsOf(tracking: TrackingResponse | undefined): CollectionGap[] {
  if (!tracking?.enabled) return [];
  return tracking.coverage.flatMap((coverage: Coverage) => [
    ...(coverage.gap && coverage.gap.reason !== 'not_collected'
      ? [
          {
            label: coverage.label,
            message: coverage.gap.message,
            since: coverage.gap.since,
            until: coverage.gap.until,
          },
        ]
      : []),
    ...(coverage.closed_gaps ?? []).map((gap) => ({
      label: coverage.label,
      message: gap.message,
      since: gap.since,
      until: gap.ended,
      ended: true,
    })),
  ]);
}

/** The gaps of the view's saved query, open and ended, by source; empty when there are none or it is not tracked. */
export function useCollectionGaps(
  workspaceId: string,
  savedQueryId: string | null | undefined,
): CollectionGap[] {
  const { api } = useApp();
  const tracking = useQuery({
    ...trackingQuery(api, workspaceId, savedQueryId ?? ''),
    enabled: Boolean(savedQueryId),
    retry: false,
  });
  return savedQueryId ? collectionGapsOf(tracking.data) : [];
}

/** The gaps that overlap the range [from, to) (ISO instants), an open one running up to now. */
export function inRange(
  gaps: readonly CollectionGap[],
  range: { from: string; to: string },
  now = Date.now(),
): CollectionGap[] {
  const from = Date.parse(range.from);
  return gaps.filter((gap) => inGap([gap], from, Date.parse(range.to) - from, now));
}

/** Whether a bucket starting at `start` (ms) and `ms` long overlaps a gap, the still-open ones up to now. */
export function inGap(gaps: readonly CollectionGap[], start: number, ms: number, now = Date.now()): boolean {
  return gaps.some((gap) => start < (gap.until ?? now / 1000) * 1000 && start + ms > gap.since * 1000);
}

export function CollectionGapsNote({ gaps, timeZone }: { gaps: readonly CollectionGap[]; timeZone: string }) {
  if (gaps.length === 0) return null;
  return (
    <p className="small collection-gaps" role="note">
      Gaps in collection (grey on the chart, marked in its table):{' '}
      {gaps
        .map((gap) =>
          gap.ended && gap.until !== null
            ? `${gap.label} from ${formatShortDateTime(gap.since, timeZone)} to ` +
              `${formatShortDateTime(gap.until, timeZone)}: ${gap.message}`
            : `${gap.label} since ${formatShortDateTime(gap.since, timeZone)}` +
              `${gap.until ? ` until ${formatShortDateTime(gap.until, timeZone)}` : ''}: ${gap.message}`,
        )
        .join('; ')}
    </p>
  );
}
