// The query editor's count of the posts a query matches, bounded in cost: counted by the analytics store
// (countStoreMatches), which visits at most `cap` + 1 rows and gives the count up as unknown after `timeoutMs`.
import type { Db } from '@server/db/database';
import { QUERY_MATCH_COUNT_CAP } from '@contract/social-query';
import type { StoreScope as CountScope } from '@server/analytics/matching/compile';
import { countStoreMatches, type StoreMatchCount } from '@server/analytics/matching/count';
import type { AnalyticsService } from '@server/analytics/service';
import { fromStore } from '../insights/store-source';

/** How long a count may take before it is cancelled and reported unknown. */
const COUNT_TIMEOUT_MS = 2000;

/** The posts `scope` matches (its query, and discover's range, platforms and languages when it has a range). */
export async function countQueryMatches(
  db: Db,
  scope: CountScope,
  service: AnalyticsService | undefined,
  { cap = QUERY_MATCH_COUNT_CAP, timeoutMs = COUNT_TIMEOUT_MS }: { cap?: number; timeoutMs?: number } = {},
): Promise<StoreMatchCount> {
  // The count compiles its own query for the store; the snapshot it is checked in reads no wall-clock time.
  return fromStore(
    db,
    { timeZone: 'UTC' },
    service,
    (store) => countStoreMatches(store, scope, { cap, timeoutMs }),
    async (_tx, count) => count,
  );
}
