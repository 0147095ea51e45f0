// The graph of a range's words and its communities (themes.ts's method; server/social/insights/README.md, "Themes",
// says why): words are nodes, a pair of words an edge when it is in at least MIN_PAIR_POSTS posts and together more
// often than chance (posts with both × posts of the range > posts with one × posts with the other), weighted by the
// Jaccard index of their posts (with both ÷ with either) when that is at least MIN_JACCARD. Communities by Louvain's
// modularity optimisation, made deterministic: nodes visited in a fixed order (their words' code points), a node moved
// only to a strictly better community, ties to the lowest-numbered one, no randomness. The same counts give the same
// themes on every refresh, whatever order the store listed them in.

/** A pair of words is an edge with at least this many posts holding both … */
export const MIN_PAIR_POSTS = 3;
/** … and a Jaccard index (posts with both ÷ posts with either) of at least this. */
export const MIN_JACCARD = 0.05;

export interface WordCount {
  value: string;
  posts: number;
}
export interface PairCount {
  /** Indexes into the words. */
  i: number;
  j: number;
  posts: number;
}
export interface Edge {
  a: string;
  b: string;
  weight: number;
}

/** The edges kept, between words (a < b in code-point order), weighted by their Jaccard index. */
export function themeEdges(words: readonly WordCount[], pairs: readonly PairCount[], posts: number): Edge[] {
  const edges: Edge[] = [];
  for (const { i, j, posts: both } of pairs) {
    const [x, y] = [words[i]!, words[j]!];
    const jaccard = both / (x.posts + y.posts - both);
    if (both < MIN_PAIR_POSTS || both * posts <= x.posts * y.posts || jaccard < MIN_JACCARD) continue;
    const [a, b] = byCodePoint(x.value, y.value) < 0 ? [x.value, y.value] : [y.value, x.value];
    edges.push({ a, b, weight: jaccard });
  }
  return edges;
}

export const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Louvain's passes stop after this many (each pass visits every node once); levels likewise. */
const MAX_PASSES = 100;
const MAX_LEVELS = 20;
/** A move must gain more than this much modularity (× 2m), so that rounding never makes two moves alternate. */
const EPSILON = 1e-12;

/** A weighted undirected graph of nodes 0…n−1: neighbours in increasing order, self-loops apart. */
interface Graph {
  n: number;
  adjacency: Array<Array<[number, number]>>;
  loops: number[];
}

/** One level's local moves: each node's community (renumbered 0… in order of first node), and whether any moved. */
function localMoves(graph: Graph): { community: number[]; moved: boolean } {
  const { n, adjacency, loops } = graph;
  const degree = adjacency.map((list, v) => list.reduce((sum, [, w]) => sum + w, 2 * loops[v]!));
  const twiceM = degree.reduce((sum, d) => sum + d, 0);
  const community = Array.from({ length: n }, (_, v) => v);
  const total = [...degree];
  let moved = false;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    let changed = false;
    for (let v = 0; v < n; v += 1) {
      const own = community[v]!;
      const links = new Map<number, number>();
      for (const [u, w] of adjacency[v]!) links.set(community[u]!, (links.get(community[u]!) ?? 0) + w);
      total[own]! -= degree[v]!;
      const gain = (c: number) => (links.get(c) ?? 0) - (total[c]! * degree[v]!) / twiceM;
      let best = own;
      let bestGain = gain(own);
      for (const c of [...links.keys()].sort((x, y) => x - y)) {
        const g = gain(c);
        if (g > bestGain + EPSILON) [best, bestGain] = [c, g];
      }
      total[best]! += degree[v]!;
      if (best !== own) {
        community[v] = best;
        changed = true;
        moved = true;
      }
    }
    if (!changed) break;
  }
  const renumber = new Map<number, number>();
  for (const c of community) if (!renumber.has(c)) renumber.set(c, renumber.size);
  return { community: community.map((c) => renumber.get(c)!), moved };
}

/** The graph of the communities: a node each, their edges' weights added up, those within one a self-loop. */
function aggregate(graph: Graph, community: number[]): Graph {
  const n = Math.max(-1, ...community) + 1;
  const loops = Array.from({ length: n }, () => 0);
  const between = Array.from({ length: n }, () => new Map<number, number>());
  graph.adjacency.forEach((list, v) => {
    const c = community[v]!;
    loops[c]! += graph.loops[v]!;
    for (const [u, w] of list) {
      const d = community[u]!;
      if (d === c) {
        if (u > v) loops[c]! += w;
      } else between[c]!.set(d, (between[c]!.get(d) ?? 0) + w);
    }
  });
  return {
    n,
    loops,
    adjacency: between.map((m) => [...m].sort((x, y) => x[0] - y[0])),
  };
}

/**
 * The communities of the words' graph, each a list of words in code-point order, the lists in the order of their
 * first word: words without an edge are in none.
 */
export function communities(edges: readonly Edge[]): string[][] {
  const words = [...new Set(edges.flatMap((e) => [e.a, e.b]))].sort(byCodePoint);
  const index = new Map(words.map((word, i) => [word, i]));
  const adjacency = words.map(() => [] as Array<[number, number]>);
  for (const { a, b, weight } of edges) {
    const [x, y] = [index.get(a)!, index.get(b)!];
    adjacency[x]!.push([y, weight]);
    adjacency[y]!.push([x, weight]);
  }
  adjacency.forEach((list) => list.sort((p, q) => p[0] - q[0]));
  let graph: Graph = { n: words.length, adjacency, loops: words.map(() => 0) };
  // Each word's community at the current level.
  let of = words.map((_, i) => i);
  for (let level = 0; level < MAX_LEVELS; level += 1) {
    const { community, moved } = localMoves(graph);
    if (!moved) break;
    of = of.map((c) => community[c]!);
    graph = aggregate(graph, community);
  }
  const groups = new Map<number, string[]>();
  words.forEach((word, i) => groups.set(of[i]!, [...(groups.get(of[i]!) ?? []), word]));
  return [...groups.values()];
}
