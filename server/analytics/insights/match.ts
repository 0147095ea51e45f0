// The query language's condition for the dashboards on the store: a query's tree compiles over whatever range a
// statement reads, its words split by the rule the store splits the posts' by (query/words.ts). Nothing is asked of
// PostgreSQL first, so the one compiler serves every query.
import type { QueryNode } from '@server/query/index';
import { compileStoreCandidates, compileStoreQuery } from '../query/compile';
import type { StoreMatch } from './scope';

const MATCH: StoreMatch = Object.assign(
  (...[node, params, range, given]: Parameters<StoreMatch>) => compileStoreQuery(node, params, range, given),
  {
    candidates: (...[node, params, range]: Parameters<StoreMatch>) =>
      compileStoreCandidates(node, params, range),
  },
);

/** The store's compiler of the query language. */
export function storeMatch(): StoreMatch;
/**
 * The form test/support/reference/scopes.ts and test/server/analytics/dashboards.fixtures.ts still call (PostgreSQL's
 * pool and the query, which the compiler needs neither of): to go once they call storeMatch().
 */
export function storeMatch(pool: object, query: QueryNode | null): StoreMatch;
export function storeMatch(): StoreMatch {
  return MATCH;
}
