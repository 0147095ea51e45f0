// Whether an opened store can answer as it is: its server version checked, its layout brought forward in place where a
// step exists (LAYOUT_STEPS), its layout and tables checked, and its position reconciled with PostgreSQL's outbox. The
// answer is the position it answers from, or why it must be rebuilt (service.ts rebuilds it beside).
import { reconcile, type ApplierDeps } from './applier';
import { checkServerVersion, layoutFault, makeDurable } from './layout';
import { migrateLayout, refeedPosts } from './layout-steps';
import { TAG } from './open';
import { claimConsumer } from './outbox';
import type { StorePosition } from './position';

export type Currency = { position: StorePosition } | { why: string };

/** `damaged`: why the store was found damaged since it opened (no step is run on it then; it is rebuilt). */
export async function storeCurrency(
  deps: ApplierDeps,
  damaged: string | null,
  log: (line: string) => void,
): Promise<Currency> {
  await checkServerVersion(deps.store);
  if (damaged) return { why: damaged };
  const reached = await migrateLayout(deps.store, undefined, {
    refeed: async (condition) => {
      const fed = await refeedPosts(deps.pool, condition);
      log(`${TAG} ${fed.toLocaleString('en-US')} posts fed again for the new layout (${condition}).`);
    },
  });
  if (reached.length) log(`${TAG} The store's layout was brought forward to ${reached.join(', ')} in place.`);
  const fault = await layoutFault(deps.store);
  if (fault !== null) return { why: fault };
  await makeDurable(deps.store);
  // This process owns the consumer from here on: a position recorded by the one before it is refused.
  await claimConsumer(deps.db, deps.owner!);
  const reconciled = await reconcile(deps);
  return reconciled.state === 'current' ? { position: reconciled.position } : { why: reconciled.why };
}
