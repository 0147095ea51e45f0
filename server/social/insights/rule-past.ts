// A tag rule's past matches from the analytics store (issue 55, item 4; run by the rules' routes,
// server/tags/routes.ts, given it by server/routes.ts). A rule created or changed (at cursor 0) has the ids of every
// post it matches read from the store in one statement, at one version (storeRulePosts), with the newest post id the
// store held then. Its rows are written in PostgreSQL in bulk, a batch a transaction, two batches at once, and its
// cursor set to that newest id, so that the live path (apply.ts) carries it on over the posts the store had not yet
// applied: posts are committed in id order, so those are exactly the posts above it, none missed, none looked at twice.
// A post the store still held but PostgreSQL has deleted since is left out. The rule's row is held (FOR NO KEY UPDATE)
// from before the store is read until its cursor is set: the live path skips a rule held (SKIP LOCKED), and a change or
// a deletion of the rule waits for it, so the rows written are the query's that is still the rule's. A store that
// cannot answer (off, preparing, out of reach, refusing) leaves the rule to the live path, which matches the past posts
// one by one as before: the rule's state says so (past_from 'matcher', past_note why).
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import type { Executor } from '@server/workspaces/access';
import { tagRules } from '@server/db/tags-schema';
import { listsFor } from '@server/lists/store';
import { parseWithLists } from '@server/query/index';
import { storeRulePosts, type StoreRulePosts } from '@server/analytics/figures/rule-posts';
import type { AnalyticsService } from '@server/analytics/service';
import { fromStore } from './store-source';

/** Rule rows written a transaction (each one outbox batch of the tag feed: migration 0044). */
export const WRITE_BATCH = 50_000;
/**
 * Batches written at once, each on its own connection: PostgreSQL writes a statement on one core, and the batches
 * touch the same tag and rule only (their outbox lock is held from the batch's end to its commit).
 */
export const WRITERS = 2;
/**
 * How the pass reads the store, which no person waits on: at once after a round of the change feed has written (the
 * store's figures count only when no round wrote while they were read), without giving the applier time to apply
 * more first (the live path carries the rule over the posts the store has not applied), and up to 20 times before
 * the pass is left to the live path. At 10M posts, rules made one after another while the store was fed the tags of
 * those before met a round writing in each of a dashboard's 3 reads, and went to the live path, one post at a time.
 */
const PAST_READ = { tries: 20, catchUpMs: 0 };
/** A batch waiting this long for a lock (a tag or category being deleted, which waits for the held rule) gives up. */
const LOCK_TIMEOUT = '5s';
/**
 * A batch's rows are held once more for its statement triggers (the feed's and the check's transition table): 50,000
 * rows take about 6 MB, which the default 4 MB of work_mem spilled to a temporary file (25–50 of 550 ms a batch).
 */
const WORK_MEM = '32MB';

/**
 * The rule's rows of the posts `ids` that PostgreSQL holds (a post deleted since the store named it left out). No
 * `ON CONFLICT`: the rule has no rows when its batches begin (applyPastFromStore), and each post is in one batch; the
 * speculative insertion of `ON CONFLICT DO NOTHING` took 6.4 s for a million rows, against 4.0 without. The ids are
 * read behind a sub-select: planning with 50,000 of them as constants took 55-70 ms a batch, their look-up 25.
 */
async function writeRuleRows(
  tx: Executor,
  rule: { id: string; workspaceId: string; tagId: string },
  ids: readonly number[],
): Promise<void> {
  await tx.execute(
    sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
      SELECT ${rule.workspaceId}, k.id, ${rule.tagId}::uuid, 'rule', ${rule.id}::uuid
      FROM (SELECT DISTINCT id FROM post_keys
        WHERE id = ANY((SELECT ${`{${ids.join(',')}}`}::bigint[])::bigint[])) k`,
  );
}

/** Ascending ids without repeats: each post in one batch, since writeRuleRows has no `ON CONFLICT`. */
const distinctAscending = (ids: readonly number[]) => ids.filter((id, i) => i === 0 || id !== ids[i - 1]);

export type PastFrom = 'store' | 'matcher';

export interface PastOptions {
  batchSize?: number;
  writers?: number;
}

/**
 * Writes `batches` with `writers` transactions at a time, each batch its own; the first failure stops the writers
 * taking more and is thrown once every batch begun has ended (none is left running).
 */
async function writeBatches(
  db: Db,
  rule: { id: string; workspaceId: string; tagId: string },
  batches: ReadonlyArray<readonly number[]>,
  writers: number,
): Promise<void> {
  let next = 0;
  let failed = false;
  const writer = async () => {
    while (!failed && next < batches.length) {
      const ids = batches[next++]!;
      try {
        await db.transaction(async (tx) => {
          await tx.execute(sql.raw(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`));
          await tx.execute(sql.raw(`SET LOCAL work_mem = '${WORK_MEM}'`));
          await writeRuleRows(tx, rule, ids);
        });
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: Math.min(writers, batches.length) }, writer));
  const failure = ended.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * The past matches of the rule `ruleId`, from the store, when the rule is at cursor 0 (created or changed, not yet
 * begun) and no other process holds it. Returns 'store' when they were written (the rule's cursor then at the store's
 * newest post), 'matcher' when the store could not answer (the live path is left to match them), null when the rule is
 * not to be done here (gone, begun, held, or its query not parsing against its lists).
 */
export async function applyPastFromStore(
  db: Db,
  service: AnalyticsService | undefined,
  ruleId: string,
  { batchSize = WRITE_BATCH, writers = WRITERS }: PastOptions = {},
): Promise<PastFrom | null> {
  return db.transaction(async (hold) => {
    const mine = and(eq(tagRules.id, ruleId), eq(tagRules.cursor, 0));
    const [rule] = await hold.select().from(tagRules).where(mine).for('no key update', { skipLocked: true });
    if (!rule) return null;
    const parsed = parseWithLists(rule.query, await listsFor(hold, rule.workspaceId, rule.query));
    if (!parsed.ok) return null;
    let found: StoreRulePosts;
    try {
      found = await fromStore(
        db,
        { timeZone: 'UTC' },
        service,
        (store) => storeRulePosts(store, parsed.ast),
        async (_tx, rows) => rows,
        PAST_READ,
      );
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      await hold
        .update(tagRules)
        .set({ pastFrom: 'matcher', pastNote: `The analytics store could not answer: ${why}` })
        .where(eq(tagRules.id, rule.id));
      return 'matcher';
    }
    const ids = distinctAscending(found.ids);
    const batches = [];
    for (let start = 0; start < ids.length; start += batchSize)
      batches.push(ids.slice(start, start + batchSize));
    // The rows of an earlier pass that ended before the cursor was set (the process stopped): the rule at cursor 0
    // has no others (the live path writes a rule's rows with its cursor, and a change of query deletes them).
    await db.execute(sql`DELETE FROM post_tags WHERE rule_id = ${rule.id}`);
    await writeBatches(db, rule, batches, writers);
    await hold
      .update(tagRules)
      .set({ cursor: found.newest, pastFrom: 'store', pastNote: null })
      .where(eq(tagRules.id, rule.id));
    return 'store';
  });
}
