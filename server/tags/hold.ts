// The order in which every writer of a tag rule's rows takes its locks, so that no two wait on each other in a circle
// (PostgreSQL would end it by failing one): the rules' rows first, then the corpus lock (every writer of posts, tags
// and the change feed holds it to its commit), then the rules' post_tags rows and ranges.
// - A rule's past pass (server/social/insights/rule-past.ts) holds its rule's row while it reads the store, then waits
//   its turn for the corpus lock, then writes the rule's ranges.
// - A rule changed or deleted, or a tag or category deleted with its rules: holdRules, then their rows go.
// - The live path (apply.ts): its rules' rows (those no other holds), then post_tags rows, whose trigger takes the
//   corpus lock.
// - A removal of posts holds the corpus lock, then clears their bits in ranges (rule_post_ranges_forget): it locks no
//   rule's row.
import { asc, type SQL } from 'drizzle-orm';
import { CORPUS_LOCK } from '@server/db/corpus-lock';
import { tagRules } from '@server/db/tags-schema';
import type { Executor } from '@server/workspaces/access';

/**
 * Locks the rules `which` selects, then the corpus (waiting its turn): before a change or deletion of rules' rows.
 * Returns the rules held.
 */
export async function holdRules(tx: Executor, which: SQL | undefined) {
  const held = await tx.select().from(tagRules).where(which).orderBy(asc(tagRules.id)).for('update');
  await tx.execute(CORPUS_LOCK);
  return held;
}
