// The query language's condition for the dashboards on the store: a query's tree compiles over whatever range a
// statement reads, its words split by the rule the store splits the posts' by (matching/words.ts). Nothing is asked of
// PostgreSQL first, so the one compiler serves every query. Absorbed OR operands are dropped first (matching/absorb.ts).
import { absorbed } from '../matching/absorb';
import { compileStoreCandidates } from '../matching/candidates';
import { compileStoreQuery } from '../matching/compile';
import type { StoreMatch } from './scope';

const MATCH: StoreMatch = Object.assign(
  (...[node, params, range, given]: Parameters<StoreMatch>) =>
    compileStoreQuery(absorbed(node), params, range, given),
  {
    candidates: (...[node, params, range]: Parameters<StoreMatch>) =>
      compileStoreCandidates(absorbed(node), params, range),
  },
);

/** The store's compiler of the query language. */
export function storeMatch(): StoreMatch {
  return MATCH;
}
