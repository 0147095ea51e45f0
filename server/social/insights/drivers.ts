// "Why this spike": what accounts for a window's posts beyond its baseline, by exact counts (no model, no sampling).
// The window is the request's range (a spike's bucket, or a range selected on a chart); its baseline is the same
// wall-clock hours of the BASELINE_DAYS days before it in the workspace's zone for a window of a day or less on the
// clock, else the range of equal length just before.
// Every value of every dimension (words as the conversation lists them, hashtags, mentions, authors, link domains,
// platforms, languages, sentiment labels) is counted in the window and in the baseline by the analytics store
// (server/analytics/figures/drivers.ts); the over-represented ones with at least DRIVER_MIN_POSTS posts in the window
// are ranked here by G², exactly, and the first driver's posts looked up in PostgreSQL.
import { DRIVER_KINDS, driverRefine, type Driver, type DriversResponse } from '@contract/insights-drivers';
import { formatWallClock, instantOfWallClock, wallClock } from '@contract/zoned-time';
import type { Db } from '@server/db/database';
import { storeDrivers, type StoreDriverRow, type StoreWindows } from '@server/analytics/figures/drivers';
import { topPostsOf } from '@server/analytics/figures/overview';
import type { AnalyticsService } from '@server/analytics/service';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { postsByIds, profilesByIds, toPost } from './rows';
import { fromStore } from './store-source';
import { STORE_WORD_RULE, WORD_RULE } from './words';

const DAY_MS = 86_400_000;
/** A window of a day or less is compared with the same hours of this many days before it. */
export const BASELINE_DAYS = 7;
/** A value is a driver with at least this many posts in the window. */
export const DRIVER_MIN_POSTS = 3;
/** The first driver's posts listed. */
const TOP_POSTS = 5;

const DRIVERS_RULE =
  `A driver is a value (a word, hashtag, mentioned account, author, link domain, platform, language or sentiment ` +
  `label) found in at least ${DRIVER_MIN_POSTS} posts of the window and in a larger share of the window's posts than ` +
  `of the baseline's. Expected = its posts in the baseline ÷ the number of baseline windows; lift = posts ÷ ` +
  `expected; share of the excess = (posts − expected) ÷ (the window's posts − the posts expected). Ranked by ` +
  `Dunning's log-likelihood G² of its 2 × 2 table (posts with it and without it, in the window and in the baseline), ` +
  `highest first, then most posts.`;

/** An instant's wall clock in the zone read as UTC, in ms (its milliseconds kept). */
function localMs(instant: Date, timeZone: string): number {
  const ms = instant.getTime();
  const w = wallClock(instant, timeZone);
  return (
    Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) + (ms - Math.floor(ms / 1000) * 1000)
  );
}

/**
 * The first instant whose wall clock in the zone reads `local` (ms, the wall clock read as UTC): the earlier of the two
 * when the clocks go back, the instant of the jump when they skip it (instantOfWallClock's rule, a date bucket's).
 */
function instantOfLocal(local: number, timeZone: string): Date {
  const second = Math.floor(local / 1000) * 1000;
  const text = new Date(second).toISOString().slice(0, 19);
  const at = instantOfWallClock(text, timeZone);
  return formatWallClock(wallClock(at, timeZone)) === text ? new Date(at.getTime() + local - second) : at;
}

export type BaselineWindows = StoreWindows & { kind: 'same_hours' | 'previous' };

/**
 * The baseline of a window [from, to): for a window of a day or less on the workspace's clock (its end's wall clock at
 * most 24 hours after its start's), the same wall-clock hours of each of the BASELINE_DAYS days before it, each end the
 * first instant that reads it on that day (instantOfLocal: the earlier when the clocks go back, the jump when they skip
 * it; hours skipped whole leave an empty window); else the range of equal length just before it. Newest first; the
 * windows never overlap one another or the window.
 */
export function baselineOf(from: Date, to: Date, timeZone: string): BaselineWindows {
  const [start, end] = [localMs(from, timeZone), localMs(to, timeZone)];
  if (end - start > DAY_MS) {
    const length = to.getTime() - from.getTime();
    return { from, to, baseline: [{ from: new Date(from.getTime() - length), to: from }], kind: 'previous' };
  }
  const baseline = Array.from({ length: BASELINE_DAYS }, (_, i) => ({
    from: instantOfLocal(start - (i + 1) * DAY_MS, timeZone),
    to: instantOfLocal(end - (i + 1) * DAY_MS, timeZone),
  }));
  return { from, to, baseline, kind: 'same_hours' };
}

/**
 * Dunning's G² of the table [[a, nw − a], [b, nb − b]]: 2 Σ O ln(O ÷ E) over its four cells, E from the margins, a cell
 * without posts adding 0 (the store ranks by the same formula: g2Sql).
 */
function g2(a: number, b: number, nw: number, nb: number): number {
  const n = nw + nb;
  const r = a + b;
  const cell = (o: number, e: number) => (o > 0 ? o * Math.log(o / e) : 0);
  return (
    2 *
    (cell(a, (nw * r) / n) +
      cell(nw - a, (nw * (n - r)) / n) +
      cell(b, (nb * r) / n) +
      cell(nb - b, (nb * (n - r)) / n))
  );
}

const KIND_ORDER = new Map(DRIVER_KINDS.map((kind, i) => [kind, i]));
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The store's rows ranked exactly: G² highest first, then most posts, then the kind's order, then the value. */
export function rankDrivers(rows: StoreDriverRow[], nw: number, nb: number, count: number, limit: number) {
  const expectedTotal = nb / count;
  const excess = nw - expectedTotal;
  return rows
    .map((row) => {
      const expected = row.b / count;
      return {
        kind: row.kind,
        value: row.value,
        posts: row.a,
        baseline_posts: row.b,
        expected,
        lift: expected > 0 ? row.a / expected : null,
        excess_share: excess > 0 ? (row.a - expected) / excess : null,
        share: nw > 0 ? row.a / nw : 0,
        g2: g2(row.a, row.b, nw, nb),
      };
    })
    .sort(
      (x, y) =>
        y.g2 - x.g2 ||
        y.posts - x.posts ||
        KIND_ORDER.get(x.kind)! - KIND_ORDER.get(y.kind)! ||
        byCodePoint(x.value, y.value),
    )
    .slice(0, limit);
}

const LABELS: Partial<Record<Driver['kind'], (value: string) => string>> = {
  hashtag: (v) => `#${v}`,
  mention: (v) => `@${v}`,
  sentiment: (v) => (v === 'not_rated' ? 'not rated' : v),
};

/** The drivers of the request's range (the window) against its baseline. */
export async function drivers(
  db: Db,
  context: InsightScope,
  limit: number,
  service?: AnalyticsService,
): Promise<DriversResponse> {
  const { scope, timeZone } = context;
  const windows = baselineOf(scope.from, scope.to, timeZone);
  const found = await fromStore(
    db,
    context,
    service,
    async (store, storeScope) => {
      const counts = await storeDrivers(store, storeScope, windows, {
        ...STORE_WORD_RULE,
        minPosts: DRIVER_MIN_POSTS,
        keep: 3 * limit,
      });
      const ranked = rankDrivers(counts.rows, counts.nw, counts.nb, windows.baseline.length, limit);
      const first = ranked[0];
      const top = first
        ? await topPostsOf(
            store,
            { ...storeScope, context: { ...context, refines: [...context.refines, driverRefine(first)] } },
            TOP_POSTS,
          )
        : [];
      return { ...counts, ranked, top };
    },
    async (tx, rows) => {
      const posts = await postsByIds(
        tx,
        rows.top.map((p) => p.id),
        context,
      );
      const authors = await profilesByIds(
        tx,
        rows.ranked.filter((d) => d.kind === 'author').map((d) => Number(d.value)),
      );
      return {
        ...rows,
        topPosts: rows.top.flatMap(({ id }) => posts.get(id) ?? []),
        handles: new Map([...authors].map(([id, a]) => [String(id), a.handle])),
      };
    },
  );
  const expected = found.nb / windows.baseline.length;
  const windowList = windows.baseline.map((w) => ({ from: w.from.toISOString(), to: w.to.toISOString() }));
  const baselineRule =
    windows.kind === 'same_hours'
      ? `The baseline is the same wall-clock hours of the ${BASELINE_DAYS} days before in ${timeZone}: on each ` +
        `day, from the first moment the clock reads the window's start to the first it reads its end (the earlier ` +
        `when the clocks go back and read it twice, the moment of the jump when they skip it; hours skipped whole ` +
        `leave that day empty), with the same query, filters and refinements; expected = its posts ÷ ` +
        `${BASELINE_DAYS}.`
      : 'The baseline is the range of equal length just before the window, with the same query, filters and ' +
        'refinements; expected = its posts.';
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    query: context.normalized,
    counted:
      `${countedBase(context)}. ${baselineRule} Every post of the window and the baseline is counted (no sample); ` +
      `a post counts once for each value it has. Words: ${WORD_RULE}. ${DRIVERS_RULE}`,
    baseline: { kind: windows.kind, windows: windowList, rule: baselineRule },
    posts: { window: found.nw, baseline: found.nb, expected, excess: found.nw - expected },
    drivers: found.ranked.map((d) => ({
      ...d,
      label:
        d.kind === 'author'
          ? `@${found.handles.get(d.value) ?? d.value}`
          : (LABELS[d.kind]?.(d.value) ?? d.value),
    })),
    top_posts: found.topPosts.map((post) => toPost(post, context.corrections)),
  };
}
