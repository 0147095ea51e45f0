// The Compare dashboard (POST /social/insights/compare): 2 to 5 columns side by side over one range — saved queries
// of a workspace, or tags of its categories within one saved query or every post (contract/insights-compare.ts, the
// two modes). Each column is resolved as a dashboard resolves { workspace_id, saved_query_id or query: '', filters,
// refine } (request.ts; a tag's column with its tag as the last refinement) and its figures are its own overview's
// (overview.ts), so that every figure of a column equals what that overview answers (with that tag as a refinement);
// share of voice
// and the buckets are put together from them here, and the overlap between the columns (posts in two or more) is one
// statement on the analytics store over the common range (server/analytics/figures/overlap.ts).
import {
  COMPARE_TOP_AUTHORS,
  compareModeOf,
  type CompareBody,
  type CompareMode,
  type CompareResponse,
} from '@contract/insights-compare';
import type { Refine } from '@contract/insights';
import type { OverviewResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { AnalyticsService } from '@server/analytics/service';
import { pairsOf, storeOverlap } from '@server/analytics/figures/overlap';
import { printQuery, type QueryNode } from '@server/query/index';
import { formatLocal } from '../counted';
import { overview } from './overview';
import { loadCorrections } from '../corrections';
import { clipToHistory, resolveInsightScope, type InsightScope } from './request';
import { fromStore } from './store-source';
import { comparedCounted, type ComparedScope } from './compare-counted';

/** The plan's history limit, as clipToHistory takes it. */
export interface HistoryLimit {
  start: Date | null;
  historyDays: number | null;
  planName: string;
}

/**
 * Every column resolved as a dashboard resolves it (404 for a saved query or a tag not in the workspace, 400 for a
 * saved query whose text no longer parses), in the body's order, with one `now` (so that "the last 30 days" is the
 * same range for all), and clipped to the plan's history. In saved queries mode the queries must share their range: a
 * saved query keeping dates of its own that the body's filters do not override is a 400 naming the ranges. In tags
 * mode every column is the one scope (the saved query, or every post) refined to its tag (the body's refinements
 * first, then the tag's).
 */
export async function resolveCompare(
  db: Db,
  workspace: { timeZone: string },
  body: CompareBody,
  history: HistoryLimit,
  now = new Date(),
): Promise<ComparedScope[]> {
  const contexts: ComparedScope[] = [];
  const corrections = await loadCorrections(db, body.workspace_id);
  // A saved query, or every post (the empty ad-hoc query, as the dashboards' "Every post").
  const resolve = (savedQueryId: string | null, refine: Refine[] | undefined) =>
    resolveInsightScope(
      db,
      workspace,
      {
        workspace_id: body.workspace_id,
        ...(savedQueryId === null ? { query: '' } : { saved_query_id: savedQueryId }),
        filters: body.filters,
        refine,
      },
      now,
      corrections,
    );
  // One after the other, on the light pool: a look-up each, and the first missing one is the 404.
  if (compareModeOf(body) === 'tags') {
    const savedQueryId = body.saved_query_id ?? null;
    for (const id of body.tag_ids!) {
      const context = await resolve(savedQueryId, [...(body.refine ?? []), { field: 'tag', values: [id] }]);
      contexts.push({ ...context, savedQueryId, tag: { id, name: context.tagNames?.get(id) ?? id } });
    }
  } else {
    for (const id of body.saved_query_ids!)
      contexts.push({ ...(await resolve(id, body.refine)), savedQueryId: id });
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
  // The same range and the same plan: every column is clipped alike (or all refused with history_limit).
  return contexts.map((context) => ({
    ...clipToHistory(context, history.start, history.historyDays, history.planName),
    savedQueryId: context.savedQueryId,
    ...(context.tag && { tag: context.tag }),
  }));
}

/** The mode of resolved columns. */
const modeOf = (contexts: readonly ComparedScope[]): CompareMode =>
  contexts[0]?.tag ? 'tags' : 'saved_queries';

/**
 * What identifies a Compare answer beyond the first column's resolved request (answer-cache.ts, answerKey: the range,
 * the zone and the plan's clip, which every column shares): each column as resolved, in order — its saved query's id,
 * canonical text, text as evaluated (its lists' items), name, platforms and languages, and its tag's id and name.
 */
export function compareKey(contexts: readonly ComparedScope[]): Record<string, unknown> {
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    compared: contexts.map(({ scope, normalized, savedQueryName, savedQueryId, tag }) => [
      savedQueryId,
      normalized,
      scope.query && printQuery(scope.query),
      savedQueryName,
      sorted(scope.platforms),
      sorted(scope.languages),
      tag?.id ?? null,
      tag?.name ?? null,
    ]),
  };
}

/**
 * The posts of the common range in two or more of the columns, and those in each pair: one statement on the store
 * (storeOverlap), each column's condition its query, filters and refinements (a tag's column: its tag among them).
 * Every query's words are asked of PostgreSQL together (the queries named as one OR's operands, as the saved queries'
 * volume does; in tags mode the one saved query's), then each column is compiled on its own.
 */
function overlapOf(
  db: Db,
  contexts: ComparedScope[],
  service: AnalyticsService | undefined,
): Promise<CompareResponse['overlap']> {
  const compared = modeOf(contexts) === 'tags' ? contexts.slice(0, 1) : contexts;
  const queries = compared.flatMap((context) => (context.scope.query ? [context.scope.query] : []));
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
 * The Compare answer for the resolved columns (resolveCompare), in order. Each column's overview is computed in turn
 * (each read as the overview dashboard reads it), then the overlap. The plan's history clip is added by
 * dashboard-answer.ts.
 */
export async function compare(
  db: Db,
  contexts: ComparedScope[],
  store?: AnalyticsService,
): Promise<CompareResponse> {
  // One after the other: the request holds one admission slot, and an overview may already use two connections.
  const overviews: OverviewResponse[] = [];
  for (const context of contexts) overviews.push(await overview(db, context, store));
  checkShared(overviews);
  const overlap = await overlapOf(db, contexts, store);

  const first = overviews[0]!;
  const mode = modeOf(contexts);
  const total = overviews.reduce((sum, o) => sum + o.totals.mentions.value, 0);
  return {
    time_zone: first.time_zone,
    range: first.range,
    previous_range: first.previous_range,
    bucket: first.bucket,
    counted: comparedCounted(contexts, first.bucket),
    mode,
    queries: overviews.map((o, i) => {
      const { savedQueryId, savedQueryName, tag } = contexts[i]!;
      return {
        saved_query_id: savedQueryId,
        ...(tag && { tag_id: tag.id }),
        name: tag ? tag.name : (savedQueryName ?? ''),
        query: o.query,
        mentions: o.totals.mentions,
        share: total ? o.totals.mentions.value / total : 0,
        sentiment: o.sentiment,
        platforms: o.platforms.map(({ platform, mentions }) => ({ platform, mentions })),
        top_authors: o.top_people.slice(0, COMPARE_TOP_AUTHORS),
      };
    }),
    over_time: first.over_time.map((bucket, b) => ({
      start: bucket.start,
      local: bucket.local,
      mentions: overviews.map((o) => o.over_time[b]!.mentions),
    })),
    overlap,
  };
}
