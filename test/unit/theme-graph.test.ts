// The themes' graph (server/social/insights/theme-graph.ts): which pairs of words are edges, and the communities
// found by its deterministic Louvain: cliques joined by weak links come out apart, a ring of cliques one community per
// clique, and the same edges given in any order (or with their ends swapped) give the same communities.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  communities,
  MIN_JACCARD,
  MIN_PAIR_POSTS,
  themeEdges,
  type Edge,
} from '@server/social/insights/theme-graph';

const clique = (words: string[], weight: number): Edge[] =>
  words.flatMap((a, i) => words.slice(i + 1).map((b) => ({ a, b, weight })));

/** Modularity of a partition of the graph (each word in one group). */
function modularity(edges: Edge[], groups: string[][]): number {
  const of = new Map(groups.flatMap((g, i) => g.map((w) => [w, i] as const)));
  const degree = new Map<string, number>();
  for (const { a, b, weight } of edges) {
    degree.set(a, (degree.get(a) ?? 0) + weight);
    degree.set(b, (degree.get(b) ?? 0) + weight);
  }
  const m = edges.reduce((s, e) => s + e.weight, 0);
  const inside = edges.filter((e) => of.get(e.a) === of.get(e.b)).reduce((s, e) => s + e.weight, 0);
  const totals = groups.map((g) => g.reduce((s, w) => s + degree.get(w)!, 0));
  return inside / m - totals.reduce((s, t) => s + (t / (2 * m)) ** 2, 0);
}

describe('the edges', () => {
  const words = [
    { value: 'outage', posts: 40 },
    { value: 'servers', posts: 30 },
    { value: 'coffee', posts: 500 },
    { value: 'login', posts: 10 },
  ];
  it('keeps pairs with enough posts, beyond chance, with a large enough Jaccard index, weighted by it', () => {
    const edges = themeEdges(
      words,
      [
        { i: 0, j: 1, posts: 25 },
        // Fewer than MIN_PAIR_POSTS posts.
        { i: 0, j: 3, posts: MIN_PAIR_POSTS - 1 },
        // No more than chance: 40 × 500 ÷ 1000 = 20.
        { i: 0, j: 2, posts: 20 },
        // Beyond chance (500 × 10 ÷ 1000 = 5) but a Jaccard index of 6 ÷ 504, below MIN_JACCARD.
        { i: 2, j: 3, posts: 6 },
      ],
      1000,
    );
    expect(6 / 504).toBeLessThan(MIN_JACCARD);
    expect(edges).toEqual([{ a: 'outage', b: 'servers', weight: 25 / 45 }]);
  });
});

describe('the communities', () => {
  it('finds two cliques joined by a weak link apart', () => {
    const edges = [
      ...clique(['outage', 'servers', 'login', 'down'], 0.5),
      ...clique(['pizza', 'cheese', 'crust', 'oven'], 0.6),
      { a: 'down', b: 'oven', weight: 0.05 },
    ];
    expect(communities(edges)).toEqual([
      ['cheese', 'crust', 'oven', 'pizza'],
      ['down', 'login', 'outage', 'servers'],
    ]);
  });

  it('finds each clique of a ring of cliques', () => {
    const groups = Array.from({ length: 6 }, (_, g) => Array.from({ length: 4 }, (_, i) => `w${g}${i}`));
    const edges = [
      ...groups.flatMap((g) => clique(g, 1)),
      ...groups.map((g, i) => ({ a: g[3]!, b: groups[(i + 1) % 6]![0]!, weight: 0.1 })),
    ];
    expect(communities(edges)).toEqual(groups);
  });

  it('gives the same communities for the same edges in any order, at least as modular as one group', () => {
    const words = 'abcdefghijkl'.split('');
    const edgeArb = fc
      .uniqueArray(
        fc.record({
          a: fc.constantFrom(...words),
          b: fc.constantFrom(...words),
          weight: fc.integer({ min: 1, max: 100 }).map((n) => n / 100),
        }),
        { selector: (e) => [e.a, e.b].sort().join(), maxLength: 30 },
      )
      .map((edges) => edges.filter((e) => e.a !== e.b));
    fc.assert(
      fc.property(edgeArb, fc.infiniteStream(fc.boolean()), (edges, swaps) => {
        const found = communities(edges);
        const shuffled = [...edges]
          .reverse()
          .map((e) => (swaps.next().value ? { a: e.b, b: e.a, weight: e.weight } : e));
        expect(communities(shuffled)).toEqual(found);
        // Every word with an edge is in exactly one community.
        const all = found.flat();
        expect(new Set(all).size).toBe(all.length);
        expect(new Set(all)).toEqual(new Set(edges.flatMap((e) => [e.a, e.b])));
        if (edges.length)
          expect(modularity(edges, found)).toBeGreaterThanOrEqual(modularity(edges, [all]) - 1e-9);
      }),
      { seed: 56, numRuns: 200 },
    );
  });
});
