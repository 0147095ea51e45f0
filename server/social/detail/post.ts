// One post by id, with the terms of the view's query it matched. The post's month comes first from post_keys (its
// (id, posted_at) index, migration 0019), so the post itself is read from that month's partition alone; the terms are
// the query's own conditions as the analytics store compiles them, evaluated on that one post, so "matched" means what
// the search means (server/analytics/figures/detail.ts).
import { sql } from 'drizzle-orm';
import type { PostDetailResponse } from '@contract/social-detail';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import type { Corrections } from '../corrections';
import { POST_COLUMNS, toPost, type PostRow } from '../post-rows';
import { printQuery, QUERY_FROM, type QueryNode } from '@server/query/index';
import { readOnly, type Tx } from '../insights/transactions';
import { fromStore } from '../insights/store-source';
import { storeMatchedTerms } from '@server/analytics/figures/detail';
import type { AnalyticsService } from '@server/analytics/service';
import { figuresWait } from '@server/analytics/figures-wait';

const postNotFound = () =>
  new ApiError(404, 'not_found', 'There is no such post, or it is older than the plan keeps.');

interface Leaf {
  node: QueryNode;
  negated: boolean;
}

/**
 * The query's terms: its leaves (a NEAR counts as one: its sides only match together), each once by its canonical
 * text, in the order written; `negated` when under an odd number of NOTs.
 */
function queryLeaves(node: QueryNode, negated = false, into = new Map<string, Leaf>()): Leaf[] {
  switch (node.type) {
    case 'not':
      queryLeaves(node.operand, !negated, into);
      break;
    case 'and':
    case 'or':
      for (const operand of node.operands) queryLeaves(operand, negated, into);
      break;
    default: {
      const key = `${negated ? '-' : '+'}${printQuery(node)}`;
      if (!into.has(key)) into.set(key, { node, negated });
    }
  }
  return [...into.values()];
}

export interface PostRead {
  postId: number;
  /** The plan's oldest instant (null: no limit): an older post is not found. */
  since: Date | null;
  /** The view's query, null for none. */
  query: QueryNode | null;
  timeZone: string;
  /** The workspace's corrections of this post's sentiment (one or none). */
  corrections: Corrections;
}

/** The post's instant to the microsecond, from post_keys; a 404 for none (or one older than `since`). */
async function postedAtOf(tx: Tx, { postId, since }: PostRead): Promise<string> {
  const [key] = (
    await tx.execute<{ posted_at: string }>(sql`
      SELECT to_char(k.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS posted_at
      FROM post_keys k WHERE k.id = ${postId} ${since ? sql`AND k.posted_at >= ${since}` : sql``}
      LIMIT 1`)
  ).rows;
  if (!key) throw postNotFound();
  return key.posted_at;
}

/** The post's row, read from its month's partition alone (posted_at is a value here); a 404 for none. */
async function postRow(tx: Tx, postId: number, postedAt: string): Promise<PostRow> {
  const [row] = (
    await tx.execute<PostRow>(sql`
      SELECT ${POST_COLUMNS} FROM ${QUERY_FROM} WHERE p.id = ${postId} AND p.posted_at = ${postedAt}::timestamptz`)
  ).rows;
  if (!row) throw postNotFound();
  return row;
}

/** The query's terms and what the store said of them: whether the post matches the query, then each leaf. */
interface Matched {
  query: QueryNode;
  leaves: Leaf[];
  values: boolean[];
}

/** The answer from the post's row and, with a query, whether it matches the query and each of its terms. */
function postAnswer(row: PostRow, corrections: Corrections, matched: Matched | null) {
  return {
    post: toPost(row, corrections),
    matched: matched && {
      query: printQuery(matched.query),
      matches: matched.values[0] === true,
      terms: matched.leaves.map((leaf, i) => ({
        term: printQuery(leaf.node),
        negated: leaf.negated,
        matched: matched.values[i + 1] === true,
      })),
    },
  };
}

/**
 * The post with its matched terms: the terms from the analytics store (storeMatchedTerms: the query and each term
 * compiled as the dashboards compile them), the post itself from PostgreSQL in a snapshot the store's version was
 * checked in. Without a query, the post alone: a record, which PostgreSQL keeps.
 */
export async function readPost(
  db: Db,
  read: PostRead,
  service?: AnalyticsService,
): Promise<Omit<PostDetailResponse, 'time_zone'>> {
  const { postId, query, corrections } = read;
  if (!query) {
    return readOnly(
      db,
      async (tx) => postAnswer(await postRow(tx, postId, await postedAtOf(tx, read)), corrections, null),
      { timeZone: read.timeZone },
    );
  }
  const postedAt = await readOnly(db, (tx) => postedAtOf(tx, read), { timeZone: read.timeZone });
  const leaves = queryLeaves(query);
  return fromStore(
    db,
    { timeZone: read.timeZone, scope: { query } },
    service,
    (store, { match }) =>
      storeMatchedTerms(store, match, postId, new Date(postedAt), [
        query,
        ...leaves.map((leaf) => leaf.node),
      ]),
    async (tx, matched) => {
      // PostgreSQL has the post but the store not yet (it answers behind PostgreSQL): its terms are not known yet.
      if (!matched) throw figuresWait({ ...service!.state(), phase: 'applying' });
      return postAnswer(await postRow(tx, postId, postedAt), corrections, { query, leaves, values: matched });
    },
  );
}
