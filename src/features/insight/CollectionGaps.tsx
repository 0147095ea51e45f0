// The collection gaps of the overview's saved query when it is tracked (its coverage: GET …/tracking): said under the
// mentions chart, and the buckets they span marked on it (mentionsGapMarks), so a dip the collection made is not read
// as a dip in the conversation. Nothing when the view is not of a tracked saved query, or its coverage cannot be read.
import { useQuery } from '@tanstack/react-query';
import type { Coverage } from '@contract/tracking';
import { trackingQuery } from '@/api/tracking';
import { useApp } from '@/components/use-app';
import { formatShortDateTime } from '@/lib/date-time';

export interface CollectionGap {
  label: string;
  message: string;
  /** Unix seconds. */
  since: number;
  until: number | null;
}

/** The open gaps of the view's saved query, by source; empty when there are none or it is not tracked. */
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
  if (!savedQueryId || !tracking.data?.enabled) return [];
  return tracking.data.coverage.flatMap((coverage: Coverage) =>
    coverage.gap && coverage.gap.reason !== 'not_collected'
      ? [
          {
            label: coverage.label,
            message: coverage.gap.message,
            since: coverage.gap.since,
            until: coverage.gap.until,
          },
        ]
      : [],
  );
}

/** Whether a bucket starting at `start` (ms) and `ms` long overlaps a gap, the still-open ones up to now. */
export function inGap(gaps: readonly CollectionGap[], start: number, ms: number, now = Date.now()): boolean {
  return gaps.some((gap) => start < (gap.until ?? now / 1000) * 1000 && start + ms > gap.since * 1000);
}

export function CollectionGapsNote({ gaps, timeZone }: { gaps: readonly CollectionGap[]; timeZone: string }) {
  if (gaps.length === 0) return null;
  return (
    <p className="small collection-gaps" role="note">
      Gaps in collection (grey on the chart):{' '}
      {gaps
        .map(
          (gap) =>
            `${gap.label} since ${formatShortDateTime(gap.since, timeZone)}` +
            `${gap.until ? ` until ${formatShortDateTime(gap.until, timeZone)}` : ''}: ${gap.message}`,
        )
        .join('; ')}
    </p>
  );
}
