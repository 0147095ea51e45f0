// The store's layout brought forward where it stands (docs/analytics-engine.md, "Migrations and rebuilds"): the steps
// from one layout version to the next, and the posts a step needs fed through the change feed again.
import type pg from 'pg';
import { refeedStore } from './check';
import { LAYOUT_VERSION, layoutVersion, postTagsTable, STORE_DATABASE, SUBREDDIT_COLUMN } from './layout';
import type { AnalyticsStore } from './store';

/**
 * A forward step of the layout: the statements that take a store of layout `version - 1` to `version` where it stands
 * (ALTER TABLE … ADD or MATERIALIZE a column or a projection, MODIFY a setting), so a new layout costs a start no
 * rebuild. Each statement must be harmless when run again (IF NOT EXISTS, and MATERIALIZE repeats nothing): a step cut
 * short is run again whole. ClickHouse materialises in the background; until it has, a part answers from its raw
 * columns (a DEFAULT computed when read, a projection skipped), so the figures are the same meanwhile. tables() makes
 * the newest layout at once: what a step adds goes there too, and the tests hold a migrated store's columns and
 * projections equal to a made one's. A store older than the first step's version - 1 is rebuilt.
 */
export interface LayoutStep {
  version: number;
  statements(db: string): string[];
  /**
   * The posts (a condition over PostgreSQL's `posts`) whose new column the store cannot compute from what it holds:
   * after the statements, they are fed through the change feed again (refeedPosts), which gives them their rows of
   * this layout, before the version is recorded. A step cut short after its refeed feeds them again: harmless, a
   * round puts a post's current rows in place of what the store has of it.
   */
  refeed?: string;
}

export const LAYOUT_STEPS: readonly LayoutStep[] = [
  // 12: `label` may be NOT_RATED_LABEL. No column changes: a store of layout 11 holds 1, 0 or -1 only, which is what
  // PostgreSQL's posts without a rating (null: every post stored before migration 0041) count as; the rescan that
  // rates them replaces the not-rated ones through the feed.
  { version: 12, statements: () => [] },
  // 13: the posts' tags (migration 0044 names every tagged post in the outbox, which fills the table).
  { version: 13, statements: (db) => [postTagsTable(db)] },
  // 14: a Reddit post's subreddit (`subreddit:`), from its permalink, which the store did not hold: the column ('' for
  // the posts already there), then the Reddit posts fed again, which gives them their subreddit and its token.
  {
    version: 14,
    statements: (db) => [
      `ALTER TABLE ${db}.posts ADD COLUMN IF NOT EXISTS ${SUBREDDIT_COLUMN} AFTER domains`,
    ],
    refeed: `platform = 'reddit'`,
  },
];

/** The ids a refeed's outbox batch names: a round's share (applier.ts, ROUND_IDS), so a batch is one round. */
const REFEED_BATCH_IDS = 25_000;

/**
 * Feeds PostgreSQL's posts that match `condition` (fixed SQL over `posts`, from LAYOUT_STEPS) through the change feed
 * again, in id order, `batch` ids an outbox batch (refeedStore: each batch its own transaction, raising the corpus
 * version). Returns how many posts.
 */
export async function refeedPosts(
  pool: pg.Pool,
  condition: string,
  batch = REFEED_BATCH_IDS,
): Promise<number> {
  let after = 0;
  let fed = 0;
  for (;;) {
    // Ordered by the column (bigint), not by the text it is read as.
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id::text AS id FROM posts WHERE (${condition}) AND id > $1 ORDER BY posts.id LIMIT $2`,
      [after, batch],
    );
    if (rows.length === 0) return fed;
    const ids = rows.map((row) => Number(row.id));
    await refeedStore(pool, { posts: ids, profiles: [] });
    fed += ids.length;
    after = ids.at(-1)!;
  }
}

/**
 * Brings the store in `db` from its layout up to `target` by LAYOUT_STEPS, recording each version reached; returns the
 * versions it reached (none when it was current, has no layout, or a step between is missing: a rebuild's case).
 * `refeed` feeds a step's posts again (refeedPosts); without it, a path with a step that needs one is a rebuild's too.
 */
export async function migrateLayout(
  store: AnalyticsStore,
  db = STORE_DATABASE,
  {
    steps = LAYOUT_STEPS,
    target = LAYOUT_VERSION,
    refeed,
  }: {
    steps?: readonly LayoutStep[];
    target?: number;
    refeed?: (condition: string) => Promise<unknown>;
  } = {},
): Promise<number[]> {
  const version = await layoutVersion(store, db);
  if (version === null || version >= target) return [];
  const path: LayoutStep[] = [];
  for (let next = version + 1; next <= target; next += 1) {
    const step = steps.find((candidate) => candidate.version === next);
    if (!step || (step.refeed !== undefined && !refeed)) return [];
    path.push(step);
  }
  for (const step of path) {
    for (const statement of step.statements(db)) await store.exec(statement);
    if (step.refeed !== undefined) await refeed!(step.refeed);
    await store.exec(`INSERT INTO ${db}.layout (version) VALUES (${Number(step.version)})`);
  }
  return path.map((step) => step.version);
}
