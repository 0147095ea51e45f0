// The post lists (the posts dashboard and the filtered-posts drill-down) and Compare's overlap in plain TypeScript
// over the reference's posts, as server/social/insights/README.md states them: the list's whole order (each page is a
// slice of it, a cursor the last row's key and id) and the posts matching two or more compared scopes.
import type { PostSort } from '@contract/insights';
import { engagementOf, scoped, type RefScope } from './figures';
import type { RefPost } from './query';

/** A post of the list and its sort key: engagement, posted_at in ms, or the overperformance score. */
export interface RefListRow {
  id: number;
  key: number;
}

/**
 * Overperformance: the post's engagement ÷ its author's average engagement over the author's posts of the scope
 * without refinements (engagement × n ÷ sum in double precision), 1 for an author of one such post or of no
 * engagement.
 */
function overperformance(posts: RefPost[], scope: RefScope): Map<number, number> {
  const byAuthor = new Map<number, { n: number; sum: number }>();
  const unrefined = scoped(posts, { ...scope, refine: [] });
  for (const post of unrefined) {
    const a = byAuthor.get(post.authorId) ?? { n: 0, sum: 0 };
    byAuthor.set(post.authorId, { n: a.n + 1, sum: a.sum + engagementOf(post) });
  }
  return new Map(
    unrefined.map((post) => {
      const { n, sum } = byAuthor.get(post.authorId)!;
      return [post.id, n === 1 || sum === 0 ? 1 : (engagementOf(post) * n) / sum];
    }),
  );
}

/**
 * The whole list by `sort`: the scope's posts (refinements applied), the highest key first (most engagement, newest,
 * most overperforming), ties by the higher id. Its length is the list's total.
 */
export function postListOrder(posts: RefPost[], scope: RefScope, sort: PostSort): RefListRow[] {
  const scores = sort === 'overperformance' ? overperformance(posts, scope) : null;
  const keyOf = (post: RefPost) =>
    sort === 'engagement' ? engagementOf(post) : sort === 'recency' ? post.at : scores!.get(post.id)!;
  return scoped(posts, scope)
    .map((post) => ({ id: post.id, key: keyOf(post) }))
    .sort((a, b) => b.key - a.key || b.id - a.id);
}

/** Compare's overlap of scopes sharing their range: each scope's matching flags per post, then the counts. */
export function overlapOf(posts: RefPost[], scopes: RefScope[]) {
  const sets = scopes.map((scope) => new Set(scoped(posts, scope).map((post) => post.id)));
  const flags = new Map(posts.map((post) => [post.id, sets.map((set) => set.has(post.id))]));
  const pairs: number[] = [];
  for (let a = 0; a < scopes.length; a += 1)
    for (let b = a + 1; b < scopes.length; b += 1)
      pairs.push([...flags.values()].filter((f) => f[a] && f[b]).length);
  return {
    flags,
    posts: [...flags.values()].filter((f) => f.filter(Boolean).length >= 2).length,
    pairs,
  };
}
