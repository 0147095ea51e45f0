// The post lists' pages from the store (the posts dashboard and the filtered-posts drill-down; postList in
// server/social/insights/posts.ts looks their posts up). A page's keys are printed as PostgreSQL prints the post's
// values (its time to the microsecond, a float8's shortest digits), so that a cursor carries what the post's record
// says. The total is one more statement.
//
// By engagement and by overperformance the store gives the page itself: the ids in the sort's order and tie-break
// (the higher id first) and each key printed as PostgreSQL prints it. By recency it cannot: PostgreSQL orders by the
// post's time to the microsecond and the store keeps whole milliseconds, so two posts of one millisecond may stand in
// either order. The store then gives the page's candidates, every post that may be on it: the posts of the cursor's
// millisecond and the first limit + 1 before it with every post sharing the millisecond of the last of them; the
// caller orders them in PostgreSQL's snapshot by their own time and id (server/social/insights/posts.ts,
// recencyPage), which also prints their keys. That is a look-up by id of about the page's size (more only where many
// matching posts share one millisecond), and needs no more of the store than it keeps.
import type { PostSort } from '@contract/insights';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import { timeLimit } from '../refusals';
import type { AnalyticsStore } from '../store';
import {
  storeFrom,
  storeRefineWhere,
  storeScopeWhere,
  zonePlaceholder,
  type Cursor,
  type StoreScope,
} from './scope';

/** One row of a page: the post's id, its sort key as text (what a cursor carries), its overperformance (that sort). */
export type PageRow = {
  id: number;
  k: string;
  score?: number;
};

export type StorePostPage =
  /** By engagement or overperformance: the page's rows in order, limit + 1 at most (one more says there is a next). */
  | { total: number; page: PageRow[] }
  /** By recency: the ids of the posts the page is made of, in no order, for PostgreSQL to order and key. */
  | { total: number; candidates: number[] };

/** A number's significant digits (no leading or trailing zeros) and the decimal exponent of the first. */
interface Decimal {
  digits: string;
  exponent: number;
}

/** The decimal of JavaScript's text of a positive number ("123.45", "0.000001", "1.5e-7", "1e+21", "1.5e+21"). */
function decimalOf(text: string): Decimal {
  const [, whole = '', fraction = '', power = '0'] = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text)!;
  const all = whole + fraction;
  const leading = /^0*/.exec(all)![0].length;
  return {
    digits: all.slice(leading).replace(/0+$/, ''),
    exponent: whole.length - 1 - leading + Number(power),
  };
}

/**
 * Whether the decimal lies strictly between the midpoints from positive `x` to its neighbours: PostgreSQL's
 * shortest digits are those of the open interval, where JavaScript's may lie on a midpoint that reads back as `x`
 * (round half to even). Exact, in integers.
 */
function strictlyNearest({ digits, exponent }: Decimal, x: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const [biased, fraction] = [Number(bits >> 52n), bits & ((1n << 52n) - 1n)];
  // x = m × 2^q; the midpoints, in quarters of 2^q, are 4m − 2 (or 4m − 1 below a power of two) and 4m + 2.
  const [m, q] = biased === 0 ? [fraction, -1074] : [fraction | (1n << 52n), biased - 1075];
  const [below, above] = [4n * m - (fraction === 0n && biased > 1 ? 1n : 2n), 4n * m + 2n];
  const [a, e] = [q - 2, exponent - digits.length + 1];
  const pow = (base: bigint, n: number) => base ** BigInt(Math.max(n, 0));
  const value = BigInt(digits) * pow(10n, e) * pow(2n, -a);
  const unit = pow(2n, a) * pow(10n, -e);
  return below * unit < value && value < above * unit;
}

/**
 * A float8 as PostgreSQL prints it (float8out, with its default extra_float_digits): the shortest digits strictly
 * nearer to the number than to its neighbours (JavaScript's, but for a midpoint JavaScript may print, which takes
 * PostgreSQL one digit more), laid out as PostgreSQL lays them out: fixed notation for a decimal exponent from −4 to
 * 14, else d.ddde±XX with at least two digits of exponent. So a cursor's key made here is the text PostgreSQL gives
 * for the same score.
 */
export function float8Text(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const abs = Math.abs(x);
  let decimal = decimalOf(String(abs));
  for (
    let precision = decimal.digits.length + 1;
    !strictlyNearest(decimal, abs) && precision <= 17;
    precision++
  )
    decimal = decimalOf(abs.toExponential(precision - 1));
  const { digits, exponent } = decimal;
  if (exponent >= -4 && exponent < 15) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}`;
    return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** A float's exact value as its IEEE 754 bits, for a bound parameter read back with reinterpretAsFloat64. */
function float64Bits(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x, true);
  return view.getBigUint64(0, true).toString();
}

/**
 * Where a page of posts starts: after the last post of the page before, its sort key (the text PostgreSQL reads back)
 * and its id (`ties[0]`); null for the first page. Discover's pages start the same way (server/social/discover).
 */
export type PostPageAfter = Pick<Cursor, 'key' | 'ties'> | null;

/** The statement cut off past `timeoutMs` (timeLimit: a UNION's whole), when given. */
const limited = (statement: string, timeoutMs?: number) =>
  timeoutMs === undefined ? statement : `${statement} ${timeLimit(timeoutMs)}`;

/** The millisecond (what the store keeps) of a recency key, "YYYY-MM-DDTHH:MM:SS.ffffffZ": its digits cut at ms. */
const keyMs = (key: string) => Date.parse(`${key.slice(0, 23)}Z`);

async function totalOf(store: AnalyticsStore, scope: StoreScope): Promise<number> {
  const { context } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), []);
  const [row] = await store.query<{ n: string }>(
    `SELECT count() AS n FROM ${posts} WHERE ${where}`,
    params.values,
  );
  return Number(row?.n ?? 0);
}

/**
 * By engagement: the matching posts after the cursor's (engagement, id), most engagement first, then the higher id;
 * `timeoutMs`: the statement's time limit, if any.
 */
export async function byEngagement(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
  cursor: PostPageAfter,
  timeoutMs?: number,
) {
  const { context } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), ['engagement']);
  let after = '';
  if (cursor) {
    const [key, id] = [params.add(cursor.key, 'UInt64'), params.add(cursor.ties[0], 'UInt64')];
    after = `AND (p.engagement < ${key} OR (p.engagement = ${key} AND p.id < ${id}))`;
  }
  const rows = await store.query<{ id: string; k: number }>(
    limited(
      `SELECT p.id AS id, p.engagement AS k FROM ${posts} WHERE ${where} ${after}
      ORDER BY p.engagement DESC, p.id DESC LIMIT ${Number(limit) + 1}`,
      timeoutMs,
    ),
    params.values,
  );
  return rows.map((row) => ({ id: Number(row.id), k: String(row.k) }));
}

/**
 * By overperformance: each post's engagement against its author's average over the scope without refinements
 * (count and sum per author, then (engagement × count) ÷ sum in float8 as PostgreSQL computes it, 1 for an author of
 * one such post or of no engagement), the posts the refinements keep after the cursor's (score, id), the highest
 * score first, then the higher id. The cursor's score is bound as its bits, so it is the exact float8 PostgreSQL
 * reads from the same text.
 */
async function byOverperformance(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
  cursor: Cursor | null,
) {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const where = storeScopeWhere(scope, params);
  const picked = storeRefineWhere(scope, params, zone) ?? '1';
  let after = '';
  if (cursor) {
    const key = `reinterpretAsFloat64(${params.add(float64Bits(Number(cursor.key)), 'UInt64')})`;
    const id = params.add(cursor.ties[0], 'UInt64');
    after = `AND (score < ${key} OR (score = ${key} AND id < ${id}))`;
  }
  const rows = await store.query<{ id: string; score: number }>(
    `SELECT id, if(n = 1 OR e = 0, 1., toFloat64(engagement) * n / toFloat64(e)) AS score
    FROM (SELECT p.id AS id, p.engagement AS engagement, ${picked} AS picked,
        count() OVER author AS n, sum(p.engagement) OVER author AS e
      FROM ${db}.posts p WHERE ${where}
      WINDOW author AS (PARTITION BY p.author_id))
    WHERE picked ${after}
    ORDER BY score DESC, id DESC LIMIT ${Number(limit) + 1}`,
    params.values,
  );
  return rows.map((row) => ({ id: Number(row.id), k: float8Text(row.score), score: row.score }));
}

/**
 * By recency, the page's candidates (see the top of this file): with a cursor, every matching post of its
 * millisecond (which of them follow the cursor only their microseconds tell), and the first limit + 1 matching posts
 * before that millisecond, newest first, with every post of the last one's millisecond (LIMIT … WITH TIES). A post
 * older than all of those has limit + 1 posts after the cursor before it, so it is on no page of this one's size.
 * `timeoutMs`: the statement's time limit, if any.
 */
export async function recencyCandidates(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
  cursor: PostPageAfter,
  timeoutMs?: number,
) {
  const { context } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), ['ts']);
  const ms = cursor ? params.add(keyMs(cursor.key), 'Int64') : null;
  const before = `SELECT id FROM (SELECT p.id AS id, p.ts AS ts FROM ${posts}
      WHERE ${where} ${ms ? `AND p.ts < ${ms}` : ''} ORDER BY ts DESC LIMIT ${Number(limit) + 1} WITH TIES)`;
  const rows = await store.query<{ id: string }>(
    limited(
      ms ? `SELECT p.id AS id FROM ${posts} WHERE ${where} AND p.ts = ${ms} UNION ALL ${before}` : before,
      timeoutMs,
    ),
    params.values,
  );
  return rows.map((row) => Number(row.id));
}

/** A page of the post list by `sort` from the store, and the list's total (the matching posts). */
export async function storePostPage(
  store: AnalyticsStore,
  scope: StoreScope,
  sort: PostSort,
  limit: number,
  cursor: Cursor | null,
): Promise<StorePostPage> {
  // Sent together: the store's process runs them as its engine allows (bound statements one at a time).
  if (sort === 'recency') {
    const [total, candidates] = await Promise.all([
      totalOf(store, scope),
      recencyCandidates(store, scope, limit, cursor),
    ]);
    return { total, candidates };
  }
  const [total, page] = await Promise.all([
    totalOf(store, scope),
    sort === 'engagement'
      ? byEngagement(store, scope, limit, cursor)
      : byOverperformance(store, scope, limit, cursor),
  ]);
  return { total, page };
}
