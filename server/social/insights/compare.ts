// The Compare dashboard (POST /social/insights/compare): 2 to 5 saved queries of a workspace side by side over one
// range. Each query is resolved as a dashboard resolves { workspace_id, saved_query_id, filters, refine } (request.ts) and
// its figures are its own overview's (overview.ts), so that every figure of a query equals what that query's overview
// answers; share of voice and the buckets are put together from them here, and the overlap between the queries (posts
// matching two or more) is one statement on the analytics store over the common range
// (server/analytics/figures/overlap.ts).
import { COMPARE_TOP_AUTHORS, type CompareBody, type CompareResponse } from '@contract/insights-compare';
import type { OverviewResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { AnalyticsService } from '@server/analytics/service';
import { pairsOf, storeOverlap } from '@server/analytics/figures/overlap';
import { printQuery, type QueryNode } from '@server/query/index';
import { formatLocal } from '../counted';
import { SENTIMENT_COUNTED } from './counted';
import { describeRefines } from './refine';
import { overview } from './overview';
import { loadCorrections } from '../corrections';
import { clipToHistory, resolveInsightScope, type InsightScope } from './request';
import { fromStore } from './store-source';

/** The plan's history limit, as clipToHistory takes it. */
export interface HistoryLimit {
  start: Date | null;
  historyDays: number | null;
  planName: string;
}

/**
 * Every compared saved query resolved as a dashboard resolves it (404 for one not in the workspace, 400 for one whose
 * text no longer parses), in the body's order, with one `now` (so that "the last 30 days" is the same range for all),
 * and clipped to the plan's history. The queries must share their range: a saved query keeping dates of its own that
 * the body's filters do not override is a 400 naming the ranges.
 */
export async function resolveCompare(
  db: Db,
  workspace: { timeZone: string },
  body: CompareBody,
  history: HistoryLimit,
  now = new Date(),
): Promise<InsightScope[]> {
  const contexts: InsightScope[] = [];
  const corrections = await loadCorrections(db, body.workspace_id);
  // One after the other, on the light pool: a look-up each, and the first missing one is the 404.
  for (const id of body.saved_query_ids) {
    contexts.push(
      await resolveInsightScope(
        db,
        workspace,
        { workspace_id: body.workspace_id, saved_query_id: id, filters: body.filters, refine: body.refine },
        now,
        corrections,
      ),
    );
  }
  const first = contexts[0]!;
  const sameRange = ({ scope }: InsightScope) =>
    scope.from.getTime() === first.scope.from.getTime() && scope.to.getTime() === first.scope.to.getTime();
  if (!contexts.every(sameRange)) {
    const ranges = contexts.map(
      ({ scope, savedQueryName }) =>
        `"${savedQueryName}": ${formatLocal(scope.from, first.timeZone)} to ${formatLocal(scope.to, first.timeZone)}`,
    );
    throw new ApiError(
      400,
      'invalid_range',
      `The saved queries compared keep different date ranges (${ranges.join('; ')}); give filters.from and ` +
        'filters.to to compare them over one range.',
    );
  }
  // The same range and the same plan: every query is clipped alike (or all refused with history_limit).
  return contexts.map((context) =>
    clipToHistory(context, history.start, history.historyDays, history.planName),
  );
}

/**
 * What identifies a Compare answer beyond the first query's resolved request (answer-cache.ts, answerKey: the range,
 * the zone and the plan's clip, which every query shares): each query as resolved, in order — its id, canonical text,
 * text as evaluated (its lists' items), name, platforms and languages.
 */
export function compareKey(
  ids: readonly string[],
  contexts: readonly InsightScope[],
): Record<string, unknown> {
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    compared: contexts.map(({ scope, normalized, savedQueryName }, i) => [
      ids[i],
      normalized,
      scope.query && printQuery(scope.query),
      savedQueryName,
      sorted(scope.platforms),
      sorted(scope.languages),
    ]),
  };
}

/**
 * The posts of the common range matching two or more of the queries, and those matching each pair: one statement on
 * the store (storeOverlap). Every query's words are asked of PostgreSQL together (the queries named as one OR's
 * operands, as the saved queries' volume does), then each query is compiled on its own.
 */
function overlapOf(
  db: Db,
  contexts: InsightScope[],
  service: AnalyticsService | undefined,
): Promise<CompareResponse['overlap']> {
  const queries = contexts.flatMap((context) => (context.scope.query ? [context.scope.query] : []));
  const query: QueryNode | null =
    queries.length > 1 ? { type: 'or', operands: queries } : (queries[0] ?? null);
  return fromStore(
    db,
    { timeZone: contexts[0]!.timeZone, scope: { query } },
    service,
    (store, { match }) =>
      storeOverlap(
        store,
        contexts.map((context) => ({ context, match })),
      ),
    async (_tx, row) => {
      const pairs = pairsOf(contexts.length);
      return { posts: row.posts, pairs: pairs.map(([a, b], i) => ({ a, b, posts: row.pairs[i]! })) };
    },
  );
}

/** What the overviews must share for their buckets to be put side by side; an Error (a 500) if they do not. */
function checkShared(overviews: OverviewResponse[]) {
  const [first, ...others] = overviews;
  const locals = (o: OverviewResponse) => o.over_time.map((b) => b.local).join();
  for (const other of others) {
    if (
      other.time_zone !== first!.time_zone ||
      other.bucket !== first!.bucket ||
      other.range.from !== first!.range.from ||
      other.range.to !== first!.range.to ||
      locals(other) !== locals(first!)
    ) {
      throw new Error('The compared overviews do not share their range and buckets.');
    }
  }
}

/**
 * The Compare answer for the resolved queries (resolveCompare), in order, `ids` their saved query ids. Each query's
 * overview is computed in turn (each read as the overview dashboard reads it), then the overlap. The plan's history clip is added by dashboard-answer.ts.
 */
export async function compare(
  db: Db,
  ids: readonly string[],
  contexts: InsightScope[],
  store?: AnalyticsService,
): Promise<CompareResponse> {
  // One after the other: the request holds one admission slot, and an overview may already use two connections.
  const overviews: OverviewResponse[] = [];
  for (const context of contexts) overviews.push(await overview(db, context, store));
  checkShared(overviews);
  const overlap = await overlapOf(db, contexts, store);

  const first = overviews[0]!;
  const { timeZone, scope, refines, tagNames } = contexts[0]!;
  const refined = refines.length
    ? ` Every query is refined to ${describeRefines(refines, timeZone, tagNames)}, the overlap too.`
    : '';
  const total = overviews.reduce((sum, o) => sum + o.totals.mentions.value, 0);
  const days = (scope.to.getTime() - scope.from.getTime()) / 86_400_000;
  return {
    time_zone: first.time_zone,
    range: first.range,
    previous_range: first.previous_range,
    bucket: first.bucket,
    counted:
      `${contexts.length} saved queries compared over the posts posted from ${formatLocal(scope.from, timeZone)} ` +
      `(inclusive) to ${formatLocal(scope.to, timeZone)} (exclusive), ${timeZone}. Each query is counted as its ` +
      `own overview counts it (its text, platforms and languages, the filters given overriding its own key by key; ` +
      `each post once, whatever its kind): its mentions are its matching posts, against the previous period of the ` +
      `${days % 1 === 0 ? `${days} days` : 'same length of time'} just before. Share of voice = a query's mentions ` +
      `÷ the sum of every compared query's mentions (a post matching several queries counts in each). Overlap = ` +
      `the posts of the range matching two or more of the queries, and per pair the posts matching both. Buckets ` +
      `are ${first.bucket}s of ${timeZone} wall-clock time.${refined} ${SENTIMENT_COUNTED}`,
    queries: overviews.map((o, i) => ({
      saved_query_id: ids[i]!,
      name: contexts[i]!.savedQueryName ?? '',
      query: o.query,
      mentions: o.totals.mentions,
      share: total ? o.totals.mentions.value / total : 0,
      sentiment: o.sentiment,
      platforms: o.platforms.map(({ platform, mentions }) => ({ platform, mentions })),
      top_authors: o.top_people.slice(0, COMPARE_TOP_AUTHORS),
    })),
    over_time: first.over_time.map((bucket, b) => ({
      start: bucket.start,
      local: bucket.local,
      mentions: overviews.map((o) => o.over_time[b]!.mentions),
    })),
    overlap,
  };
}
