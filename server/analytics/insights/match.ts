// The query language's condition for the dashboards on the store: the query's own words are asked of PostgreSQL once
// (its parser splits them: query/words.ts), then the tree compiles over whatever range a statement reads.
import type pg from 'pg';
import type { QueryNode } from '@server/query/index';
import { compileStoreCandidates, compileStoreQuery } from '../query/compile';
import { queryWords } from '../query/words';
import type { StoreMatch } from './scope';

export async function storeMatch(db: pg.Pool | pg.ClientBase, query: QueryNode | null): Promise<StoreMatch> {
  const words = await queryWords(db, query);
  return Object.assign(
    (...[node, params, range, given]: Parameters<StoreMatch>) =>
      compileStoreQuery(node, params, words, range, given),
    {
      candidates: (...[node, params, range]: Parameters<StoreMatch>) =>
        compileStoreCandidates(node, params, words, range),
    },
  );
}
