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
import { CORPUS_LOCK } from '@server/db/corpus-lock';
import { isPgError } from '@server/invites/secrets';
import { fromStore } from './store-source';

/**
 * How the pass reads the store, which no person waits on: at once after a round of the change feed has written (the
 * store's figures count only when no round wrote while they were read), without giving the applier time to apply
 * more first (the live path carries the rule on over the posts the store has not applied), and up to 20 times before
 * the pass is left to the live path. At 10M posts, rules made one after another while the store was fed the tags of
 * those before met a round writing in each of a dashboard's 3 reads, and went to the live path, one post at a time.
 */
const PAST_READ = { tries: 20, catchUpMs: 0 };
/** Posts a range of a rule's past matches covers (migration 0057): its bitmap is `bit(RANGE)`. */
export const RANGE = 4096;
/**
 * The pass waits its turn this long for the corpus lock (writers of the corpus hold it to their commit), then gives the
 * rule to the live path. It holds its rule's row meanwhile; every writer of a rule's rows takes the rules' rows before
 * the corpus lock (server/tags/hold.ts), so none holds the lock while waiting for this row.
 */
const CORPUS_LOCK_WAIT = '30s';
/** PostgreSQL's lock_not_available: a lock waited for longer than lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';
/**
 * A statement's ranges are held again for their triggers (the feed's transition table), and their posts named to
 * the feed (1.33 million at 10M, sorted): the default 4 MB of work_mem spilled to a temporary file.
 */
const WORK_MEM = '64MB';

/** The ranges of ascending `ids`: each one's start and its bitmap in hex, bit o (the leftmost first) post start + o. */
export function rangesOf(ids: readonly number[]): { starts: number[]; bits: string[] } {
  const starts: number[] = [];
  const bits: string[] = [];
  let bytes: Buffer | undefined;
  for (const id of ids) {
    const start = id - (id % RANGE);
    if (starts.at(-1) !== start) {
      if (bytes) bits.push(bytes.toString('hex'));
      starts.push(start);
      bytes = Buffer.alloc(RANGE / 8);
    }
    const offset = id - start;
    bytes![offset >> 3]! |= 0x80 >> (offset & 7);
  }
  if (bytes) bits.push(bytes.toString('hex'));
  return { starts, bits };
}

/**
 * Takes the corpus lock for the transaction, in its turn behind the writers already waiting (a try would lose it to
 * each of them, and could fail for as long as they keep coming): false after CORPUS_LOCK_WAIT.
 */
async function corpusLocked(tx: Executor): Promise<boolean> {
  try {
    await tx.transaction(async (wait) => {
      await wait.execute(sql`SELECT set_config('lock_timeout', ${CORPUS_LOCK_WAIT}, true)`);
      await wait.execute(CORPUS_LOCK);
    });
  } catch (error) {
    if (isPgError(error, LOCK_NOT_AVAILABLE)) return false;
    throw error;
  }
  // The rest of the pass waits for its locks as any statement does.
  await tx.execute(sql`SET LOCAL lock_timeout TO DEFAULT`);
  return true;
}

/**
 * Which of `ids` (ascending, distinct) PostgreSQL no longer holds: counted first, by the posts' id index in one pass
 * (0.7-2.5 s for 1.33 million at 10M posts), and only when some are missing looked for one by one (3.6 s).
 */
async function goneOf(tx: Executor, ids: readonly number[]): Promise<Set<number>> {
  const posts = sql`(SELECT ${`{${ids.join(',')}}`}::bigint[])::bigint[]`;
  const { rows } = await tx.execute<{ n: number }>(
    sql`SELECT count(DISTINCT id)::int AS n FROM post_keys WHERE id = ANY (${posts})`,
  );
  if (rows[0]!.n === ids.length) return new Set();
  const { rows: gone } = await tx.execute<{ id: string }>(
    sql`SELECT u.id::text AS id FROM unnest(${posts}) u(id) WHERE NOT EXISTS (SELECT FROM post_keys k WHERE k.id = u.id)`,
  );
  return new Set(gone.map((row) => Number(row.id)));
}

/**
 * The rule's past matches `ids` (ascending, distinct), as ranges, of the posts PostgreSQL holds (false when the corpus
 * lock could not be had, and nothing written): under the corpus
 * lock, so no post is removed between the look-up and the commit (a removed post's bits are cleared by the
 * transaction that removes it, which could not see these), the posts deleted since the store named them left out.
 * 1.33 million matches at 10M posts are 2,442 rows; as rows of post_tags they took 6-9 s to write.
 */
async function writeRanges(tx: Executor, ruleId: string, ids: readonly number[]): Promise<boolean> {
  await tx.execute(sql.raw(`SET LOCAL work_mem = '${WORK_MEM}'`));
  if (!(await corpusLocked(tx))) return false;
  // Rows of the rule left by a pass of before migration 0057 that ended before its cursor was set (the process
  // stopped): a rule at cursor 0 has no others (the live path writes a rule's rows with its cursor, and a change of
  // query deletes them). Under the corpus lock: their deletion names their posts to the feed, which takes it.
  await tx.execute(sql`DELETE FROM post_tags WHERE rule_id = ${ruleId}`);
  const removed = await goneOf(tx, ids);
  const { starts, bits } = rangesOf(removed.size ? ids.filter((id) => !removed.has(id)) : ids);
  if (!starts.length) return true;
  await tx.execute(
    sql`INSERT INTO rule_post_ranges (rule_id, start, bits)
      SELECT ${ruleId}::uuid, u.start, ('x' || u.hex)::bit(${sql.raw(String(RANGE))})
      FROM unnest(${`{${starts.join(',')}}`}::bigint[], ${`{${bits.join(',')}}`}::text[]) u(start, hex)`,
  );
  return true;
}

/** Ascending ids without repeats. */
const distinctAscending = (ids: readonly number[]) => ids.filter((id, i) => i === 0 || id !== ids[i - 1]);

export type PastFrom = 'store' | 'matcher';

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
): Promise<PastFrom | null> {
  return db.transaction(async (hold) => {
    const mine = and(eq(tagRules.id, ruleId), eq(tagRules.cursor, 0));
    const [rule] = await hold.select().from(tagRules).where(mine).for('no key update', { skipLocked: true });
    if (!rule) return null;
    const parsed = parseWithLists(rule.query, await listsFor(hold, rule.workspaceId, rule.query));
    if (!parsed.ok) return null;
    const toMatcher = async (pastNote: string) => {
      await hold.update(tagRules).set({ pastFrom: 'matcher', pastNote }).where(eq(tagRules.id, rule.id));
      return 'matcher' as const;
    };
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
      return toMatcher(`The analytics store could not answer: ${why}`);
    }
    // Its ranges are written with its cursor, in this transaction: a pass that stops leaves none.
    if (!(await writeRanges(hold, rule.id, distinctAscending(found.ids))))
      return toMatcher(`The corpus was being written to for more than ${CORPUS_LOCK_WAIT}.`);
    await hold
      .update(tagRules)
      .set({ cursor: found.newest, pastFrom: 'store', pastNote: null })
      .where(eq(tagRules.id, rule.id));
    return 'store';
  });
}
