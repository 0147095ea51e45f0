// A dashboard's scope as a condition over the store's `posts p`: the range, the platforms and languages filters, the
// query (compiled by the caller's `match`) and the drill-down refinements, each meaning exactly what its PostgreSQL
// condition means (server/social/scope.ts, server/social/insights/refine.ts). Every value travels as a bound
// parameter (StoreParams); the SQL text is fixed here.
import type { Bucket, Refine } from '@contract/insights';
import type { QueryNode } from '@server/query/index';
import { CORRECTED_SCORE } from '@contract/sentiment-corrections';
import type { Corrections, SentimentLabel } from '@server/social/corrections';
import type { InsightScope } from '@server/social/insights/request';
import { FIELD_TOKEN_MARKS, NOT_RATED_LABEL, SET_ROW_COLUMNS, STORE_DATABASE, TAG_MARKS } from '../layout';
import type { StoreParams } from '../params';
import { absorbed } from '../matching/absorb';
import { candidateIds, candidateRows, type StoreCandidates } from '../matching/candidates';
import type { StoreRange } from '../matching/compile';
import { bucketLocal, dayOfWeekSql, hourOfDaySql, localBucketSql, POST_SECONDS } from './time';

/**
 * The query language compiled for the store: a condition over `posts p` for `node`, its values added to `params`;
 * `range` is the range the statement reads (a compiler may bound its token look-ups by it).
 */
export interface StoreMatch {
  /** `given`: nodes every post read is known to match (a candidate set's), compiled as true. */
  (node: QueryNode, params: StoreParams, range: StoreRange, given?: ReadonlySet<QueryNode>): string;
  /** The candidate set of `node` over `range`, or null when there is none short of every post (compileStoreCandidates). */
  candidates(node: QueryNode, params: StoreParams, range: StoreRange): StoreCandidates | null;
  /**
   * When the matches of `node` over `range` are read from a set found once (figures/match-sets.ts): the table of its
   * rows (kept-sets.ts, rowsOf), else null.
   */
  setRows?(node: QueryNode, range: StoreRange): string | null;
}

/** What every dashboard statement on the store is built from. */
export interface StoreScope {
  context: InsightScope;
  match: StoreMatch;
  /** The store's database (the one the dashboards read by default). */
  db?: string;
}

/** Where a keyset page starts: after the last row of the page before (server/social/insights/cursor.ts). */
export interface Cursor {
  /** The sort key of the last row, as text (a post's time to the microsecond, a float8's shortest digits). */
  key: string;
  /** Numbers for its tie-breaks (post id, or mentions, engagement, profile id). */
  ties: number[];
  from: string;
  to: string;
}

const HOUR_MS = 3_600_000;
const BUCKET_MS = { hour: HOUR_MS, day: 24 * HOUR_MS, week: 7 * 24 * HOUR_MS } as const;
/** Clocks move by at most 2 hours at a DST change: a date refinement's instants are bounded 3 hours wider. */
const SLACK_MS = 3 * HOUR_MS;
const LABELS = { positive: 1, neutral: 0, negative: -1 } as const;

const strip = (value: string, prefix: string) =>
  prefix && value.startsWith(prefix) ? value.slice(prefix.length) : value;
/** Lower case, the prefix taken off, duplicates dropped: as refine.ts reads hashtags, mentions, domains and words. */
const lower = (values: string[], prefix = '') => [
  ...new Set(values.map((v) => strip(v, prefix).toLowerCase())),
];

const any = (conditions: string[]) =>
  conditions.length === 1 ? conditions[0]! : `(${conditions.join(' OR ')})`;

/**
 * A post in the chart's bucket starting at `value`: its own wall-clock bucket (exact, as PostgreSQL's date_trunc),
 * the instants bounded around it so that the time index narrows the scan.
 */
function dateCondition(bucket: Bucket, value: string, timeZone: string, zone: string, params: StoreParams) {
  // resolveInsightScope has checked that the value starts a bucket (checkRefines in refine.ts refuses it otherwise).
  const start = new Date(value);
  const local = bucketLocal(start, bucket, timeZone);
  const lo = start.getTime() - SLACK_MS;
  const hi = start.getTime() + BUCKET_MS[bucket] + SLACK_MS;
  return (
    `(p.ts >= ${params.add(lo, 'Int64')} AND p.ts < ${params.add(hi, 'Int64')} AND ` +
    `${localBucketSql(bucket, POST_SECONDS, zone)} = ${params.add(local, 'String')})`
  );
}

/**
 * A post's sentiment label (1, 0, -1, or NOT_RATED_LABEL: neutral but "not rated") as the workspace counts it, over
 * `posts p`: its corrections' labels (server/social/corrections.ts) given as bound arrays of ids and labels, or the
 * store's own column when it has none. A corrected post is rated. Compare with 1 and -1, or use ratedSql().
 */
export function storeLabel(corrections: Corrections, params: StoreParams): string {
  if (!corrections.byId.size) return 'p.label';
  const [ids, labels] = correctionArrays(corrections, (label) => LABELS[label]);
  return `transform(p.id, ${params.add(ids, 'Array(UInt64)')}, ${params.add(labels, 'Array(Int8)')}, p.label)`;
}

/** Whether a label (storeLabel's expression) is rated: what the sentiment split's shares and averages count. */
export const ratedSql = (label: string) => `(${label}) != ${NOT_RATED_LABEL}`;

/** A post's sentiment score (Float64) as the workspace counts it, over `posts p`: 1, 0 or -1 where corrected. */
export function storeSentiment(corrections: Corrections, params: StoreParams): string {
  if (!corrections.byId.size) return 'toFloat64(p.sentiment)';
  const [ids, scores] = correctionArrays(corrections, (label) => CORRECTED_SCORE[label]);
  return (
    `transform(p.id, ${params.add(ids, 'Array(UInt64)')}, ${params.add(scores, 'Array(Float64)')}, ` +
    'toFloat64(p.sentiment))'
  );
}

function correctionArrays(corrections: Corrections, value: (label: SentimentLabel) => number) {
  const ids: number[] = [];
  const values: number[] = [];
  for (const [id, correction] of corrections.byId) {
    ids.push(id);
    values.push(value(correction.label));
  }
  return [ids, values] as const;
}

/** The profiles of `where`, as the set of author ids a post's author is tested against. */
const authorsWhere = (db: string, where: string) =>
  `p.author_id IN (SELECT id FROM ${db}.profiles WHERE ${where})`;

/**
 * The condition a refinement's values match (before `exclude`). `tags`: a hashtag, mention or domain is looked for in
 * the post's `tags` (the three lists in one, each element marked by its list's first byte: TAG_MARKS), which the token
 * rows carry, rather than in its own list, which only the posts table has: the same posts either way.
 */
function matchCondition(
  refine: Refine,
  zone: string,
  timeZone: string,
  params: StoreParams,
  db: string,
  corrections: Corrections,
  tags: boolean,
): string {
  const strings = (values: string[], type = 'Array(String)') => params.add(values, type);
  const listed = (list: keyof typeof TAG_MARKS, values: string[]) =>
    tags
      ? `hasAny(p.tags, ${strings(values.map((value) => `${TAG_MARKS[list]}${value}`))})`
      : `hasAny(p.${list}, ${strings(values)})`;
  switch (refine.field) {
    case 'date':
      return any(refine.values.map((v) => dateCondition(refine.bucket, v, timeZone, zone, params)));
    case 'platform':
      return `has(${strings(refine.values)}, p.platform)`;
    case 'hashtag':
      return listed('hashtags', lower(refine.values, '#'));
    case 'mention':
      return listed('mentions', lower(refine.values, '@'));
    case 'domain':
      return listed('domains', lower(refine.values));
    case 'term':
      // The word, lower-cased, among the post's words outside links (toks): as the conversation dashboard lists it.
      return `hasAny(p.toks, arrayMap(w -> sipHash64(w), ${strings(lower(refine.values))}))`;
    case 'author': {
      const ids = refine.values.filter((v): v is number => typeof v === 'number');
      const handles = lower(
        refine.values.filter((v): v is string => typeof v === 'string'),
        '@',
      );
      return (
        `(has(${params.add(ids, 'Array(UInt64)')}, p.author_id) OR ` +
        `${authorsWhere(db, `lowerUTF8(handle) IN ${strings(handles)}`)})`
      );
    }
    case 'sentiment':
      // By the post's label as the split counts it: `neutral` the rated neutral posts, `not_rated` the others
      // (docs/sentiment.md, "Not rated in the dashboards").
      return `has(${params.add(
        refine.values.map((v) => (v === 'not_rated' ? NOT_RATED_LABEL : LABELS[v])),
        'Array(Int8)',
      )}, ${storeLabel(corrections, params)})`;
    case 'language':
      return `has(${strings(refine.values)}, p.lang)`;
    case 'media':
      return `has(${strings(refine.values)}, p.media)`;
    case 'kind':
      return `has(${strings(refine.values)}, p.kind)`;
    case 'followers': {
      const ranges = refine.values.map(({ min, max }) => {
        const parts: string[] = [];
        if (min !== undefined) parts.push(`followers >= ${params.add(min, 'UInt64')}`);
        if (max !== undefined) parts.push(`followers < ${params.add(max, 'UInt64')}`);
        return `(${parts.join(' AND ')})`;
      });
      return authorsWhere(db, ranges.join(' OR '));
    }
    case 'tag':
      // The posts that carry one of the tags (the store's post_tags, fed with the posts: layout.ts).
      return `p.id IN (SELECT post FROM ${db}.post_tags WHERE tag IN ${params.add(refine.values, 'Array(UUID)')})`;
    case 'hour_of_week':
      return any(
        refine.values.map(
          ({ day, hour }) =>
            `(${dayOfWeekSql(POST_SECONDS, zone)} = ${params.add(day, 'UInt8')} AND ` +
            `${hourOfDaySql(POST_SECONDS, zone)} = ${params.add(hour, 'UInt8')})`,
        ),
      );
  }
}

/**
 * The scope's condition over [from, to) (the request's range by default) without its refinements, over `posts p`: the
 * range, the platforms and languages filters and the query (what an overperformance average is taken over).
 */
export function storeScopeWhere(
  { context, match }: StoreScope,
  params: StoreParams,
  range: StoreRange = context.scope,
  given?: ReadonlySet<QueryNode>,
): string {
  const { scope } = context;
  const parts = [
    `p.ts >= ${params.add(range.from.getTime(), 'Int64')}`,
    `p.ts < ${params.add(range.to.getTime(), 'Int64')}`,
  ];
  if (scope.platforms.length) parts.push(`has(${params.add(scope.platforms, 'Array(String)')}, p.platform)`);
  if (scope.languages.length) parts.push(`has(${params.add(scope.languages, 'Array(String)')}, p.lang)`);
  if (scope.query) parts.push(`(${match(scope.query, params, range, given)})`);
  return parts.join(' AND ');
}

/**
 * The refinements' condition over `posts p` (every one holds), or null when there are none. `zone` is the placeholder
 * of the workspace's zone (zonePlaceholder), which the statement's time expressions share.
 */
export function storeRefineWhere(
  { context, db = STORE_DATABASE }: StoreScope,
  params: StoreParams,
  zone: string,
  { tags = false }: { tags?: boolean } = {},
): string | null {
  const { refines, timeZone } = context;
  const parts = refines.map((refine) => {
    const condition = matchCondition(refine, zone, timeZone, params, db, context.corrections, tags);
    // A post whose value is unknown (a null language, '' in the store) matches no value, so an exclusion keeps it.
    return refine.exclude ? `NOT (${condition})` : `(${condition})`;
  });
  return parts.length ? parts.join(' AND ') : null;
}

/**
 * The scope's condition over [from, to) (the request's range by default) with its refinements, over `posts p`.
 * `zone` is the placeholder of the workspace's zone (zonePlaceholder), which the statement's time expressions share.
 */
export function storeWhere(
  scope: StoreScope,
  params: StoreParams,
  zone: string,
  range: StoreRange = scope.context.scope,
  given?: ReadonlySet<QueryNode>,
  options: { tags?: boolean } = {},
): string {
  const where = storeScopeWhere(scope, params, range, given);
  const refine = storeRefineWhere(scope, params, zone, options);
  return refine === null ? where : `${where} AND ${refine}`;
}

/** The workspace's zone as a placeholder, for the time expressions of a statement. */
export const zonePlaceholder = (context: InsightScope, params: StoreParams) =>
  params.add(context.timeZone, 'String');

/** The period of equal length just before the range (as server/social/insights/where.ts's previousPeriod). */
export const previousRange = ({ scope }: InsightScope): StoreRange => ({
  from: new Date(2 * scope.from.getTime() - scope.to.getTime()),
  to: scope.from,
});

/**
 * Refinements on columns the token rows lack: a post's lexemes. (Hashtags, mentions and domains are looked for in the
 * token rows' `tags`: matchCondition.)
 */
const UNLISTED: ReadonlySet<Refine['field']> = new Set(['term']);
/** Whether the refinements read only the columns a token row or a set's row gives (not UNLISTED). */
const refinesListed = (context: InsightScope) =>
  context.refines.every((refine) => !UNLISTED.has(refine.field));
/** The columns of p a condition reads. */
const columnsOf = (where: string) => [...where.matchAll(/\bp\.([a-z_]+)/g)].map((m) => m[1]!);
/**
 * The columns of p the token rows give: their post's id, time, quarter and TOKEN_POST_COLUMNS; a long query's set's
 * rows the same (SET_ROW_COLUMNS).
 */
const LISTED: ReadonlySet<string> = new Set(SET_ROW_COLUMNS.map(([name]) => name));

/**
 * The most values of a platforms or languages filter whose slices are read (filterCandidates). Measured at 10M posts
 * over 30 and 90 days, every post, p95 of every dashboard (docs/analytics-engine.md, "A filter's slices"): one or two
 * values were faster on each, by up to five times for one platform; three platforms were faster on four dashboards
 * and slower on the conversation.
 */
const FILTER_SLICES_MAX_VALUES = 2;

/**
 * The slices of the platforms or the languages filter, whichever names fewer values (at most
 * FILTER_SLICES_MAX_VALUES), as a candidate set: a post has one token of each field, so the slices of a filter's
 * values are exactly its posts, each once. Read where the query gives no set: the filter's posts rather than every
 * post of the range tested against it. Its condition stays in `where`.
 */
function filterCandidates({ scope }: InsightScope, params: StoreParams): StoreCandidates | null {
  const filters = [
    ['platform', scope.platforms],
    ['lang', scope.languages],
  ] as const;
  // The one of fewer values (a stable sort: the platforms' on a tie).
  const [field, values] = filters
    .filter(([, values]) => values.length > 0 && values.length <= FILTER_SLICES_MAX_VALUES)
    .sort((a, b) => a[1].length - b[1].length)[0] ?? [null, []];
  if (!field) return null;
  const mark = FIELD_TOKEN_MARKS[field];
  const tokens = values.map((value) => `sipHash64('${mark}', ${params.add(value, 'String')})`);
  return {
    tokens: `tok IN (${tokens.join(', ')})`,
    posts: null,
    repeats: false,
    given: new Set(),
    wide: true,
  };
}

/**
 * The posts a statement reads (`from`, aliased p) and its condition over them (`where`, storeWhere's). `columns`: the
 * columns of p the statement reads besides its condition's. When the query gives a candidate set
 * (StoreMatch.candidates) and the statement and its condition read only the token rows' columns, p is those
 * candidates read from the token slices with their columns (each post once): a term's posts are read from its slices
 * rather than the range's posts tested one by one against them. When they read other columns, p is the posts table
 * and the posts are tested against the candidates' ids once (`p.id IN`), not once a term (an OR of three terms: one
 * test a post, not three). The whole condition is evaluated over p either way (but for the set's own terms, which its
 * every post matches), so every form gives the same rows. Without the query's set, a platforms or languages filter's
 * slices are read when the statement reads the token rows' columns alone (filterCandidates). A long query's set of
 * matches (StoreMatch.setRows) is read as its rows, which carry the same columns, when the statement reads only those,
 * else p is the posts table tested against the set's ids. `candidates`: whether p is a candidate set's posts;
 * `slices`: whether p is read from the token slices or a set's rows rather than the posts table.
 */
export function storeFrom(
  scope: StoreScope,
  params: StoreParams,
  zone: string,
  columns: readonly string[],
  range: StoreRange = scope.context.scope,
): { from: string; where: string; candidates: boolean; slices: boolean } {
  const { context, match, db = STORE_DATABASE } = scope;
  const query = context.scope.query;
  const table = `${db}.posts p`;
  const listed = columns.every((column) => LISTED.has(column)) && refinesListed(context);
  // The condition's own columns (p.ts, p.platform…) are read too.
  const readBy = (where: string) => {
    const read = new Set([...columns, ...columnsOf(where)]);
    const unknown = [...read].filter((column) => !LISTED.has(column));
    if (unknown.length) throw new Error(`Not in the token rows: ${unknown.join(', ')}`);
    return read;
  };
  // A long query's set: its rows (which carry the token rows' columns), else the posts tested against it (match).
  const rows = listed && query ? match.setRows?.(query, range) : null;
  if (query && rows) {
    const where = storeWhere(scope, params, zone, range, new Set([query, absorbed(query)]), { tags: true });
    readBy(where);
    return { from: `${rows} p`, where, candidates: true, slices: true };
  }
  const byQuery = query ? match.candidates(query, params, range) : null;
  const candidates = byQuery ?? filterCandidates(context, params);
  // A filter's posts are a large share of the range: their ids tested against the posts table would cost more than
  // the filter's own condition does there.
  if (candidates === null || (byQuery === null && !listed))
    return { from: table, where: storeWhere(scope, params, zone, range), candidates: false, slices: false };
  const where = storeWhere(scope, params, zone, range, candidates.given, { tags: listed });
  if (!listed)
    return {
      from: table,
      where: `p.id IN (${candidateIds(candidates, params, range)}) AND ${where}`,
      candidates: true,
      slices: false,
    };
  const read = readBy(where);
  return {
    from: `(${candidateRows(candidates, read, params, range)}) p`,
    where,
    candidates: true,
    slices: true,
  };
}
