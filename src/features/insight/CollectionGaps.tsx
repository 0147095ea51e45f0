// The collection gaps of the overview's saved query when it is tracked, open and ended, over the view's range (GET
// …/tracking/gaps): said under the mentions chart, and the buckets they span marked on it and in its table (inGap), so
// a dip the collection made is not read as a dip in the conversation. Nothing when the view is not of a tracked saved
// query, or its gaps cannot be read.
import { useQuery } from '@tanstack/react-query';
import { trackingGapsQuery } from '@/api/tracking';
import { useApp } from '@/components/use-app';
import { formatShortDateTime } from '@/lib/date-time';
import type { TableColumn } from './ChartCard';

export interface CollectionGap {
  label: string;
  message: string;
  /** Unix seconds. */
  since: number;
  until: number | null;
  /** An ended gap: `until` is when the source answered again, not when it is expected to. */
  ended?: boolean;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The gaps of the view's saved query over its range (ISO instants), open and ended; empty when it is not tracked. */
export function useCollectionGaps(
  workspaceId: string,
  savedQueryId: string | null | undefined,
  range: { from: string; to: string },
): CollectionGap[] {
  const { api } = useApp();
  const [from, to] = [seconds(range.from), seconds(range.to)];
  const gaps = useQuery({
    ...trackingGapsQuery(api, workspaceId, savedQueryId ?? '', from, to),
    enabled: Boolean(savedQueryId) && from < to,
    retry: false,
  });
  return savedQueryId ? (gaps.data?.gaps ?? []) : [];
}

/** Whether a bucket starting at `start` (ms) and `ms` long overlaps a gap, the still-open ones up to now. */
export function inGap(gaps: readonly CollectionGap[], start: number, ms: number, now = Date.now()): boolean {
  return gaps.some((gap) => start < (gap.until ?? now / 1000) * 1000 && start + ms > gap.since * 1000);
}

/** The table's column of the buckets a gap spans, as the chart marks them grey; none when no bucket is in a gap. */
export function gapColumn<R>(any: boolean, inAGap: (row: R) => boolean): Array<TableColumn<R>> {
  if (!any) return [];
  return [
    {
      label: 'Collection',
      value: (row) => (inAGap(row) ? 'gap' : ''),
      show: (row) => (inAGap(row) ? 'Gap in collection' : ''),
    },
  ];
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
