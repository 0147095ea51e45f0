// The scraping page's corpus totals from the store: every post of the corpus counted per platform and UTC day from a
// given day on, and per platform over all time (server/scraping/store.ts, corpusTotals), in one statement.
import { STORE_DATABASE } from '../layout';
import type { AnalyticsStore } from '../store';

const DAY_MS = 86_400_000;

export interface StoreCorpusTotals {
  /** Per UTC day ("YYYY-MM-DD") from `from` on and platform, the days that have posts. */
  recent: Array<{ day: string; platform: string; posts: number }>;
  /** Per platform, every post; the most first. */
  allTime: Array<{ platform: string; posts: number }>;
}

/**
 * The totals, the recent ones from `from` (the start of a UTC day) on: one statement counting the posts per platform
 * and UTC day (a few thousand rows for years of a corpus), summed here per platform for all time.
 */
export async function storeCorpusTotals(
  store: AnalyticsStore,
  from: Date,
  db = STORE_DATABASE,
): Promise<StoreCorpusTotals> {
  const rows = await store.query<{ platform: string; d: number | string; n: string }>(
    `SELECT p.platform AS platform, intDiv(p.ts, ${DAY_MS}) AS d, count() AS n
    FROM ${db}.posts p GROUP BY platform, d`,
  );
  const first = Math.floor(from.getTime() / DAY_MS);
  const allTime = new Map<string, number>();
  const recent: StoreCorpusTotals['recent'] = [];
  for (const row of rows) {
    const [d, posts] = [Number(row.d), Number(row.n)];
    allTime.set(row.platform, (allTime.get(row.platform) ?? 0) + posts);
    if (d >= first)
      recent.push({ day: new Date(d * DAY_MS).toISOString().slice(0, 10), platform: row.platform, posts });
  }
  return {
    recent,
    allTime: [...allTime]
      .map(([platform, posts]) => ({ platform, posts }))
      .sort((a, b) => b.posts - a.posts || a.platform.localeCompare(b.platform)),
  };
}
