// Themes of a range in plain TypeScript over the reference's posts: each post's words as the conversation counts them
// (words.ts's rule: the post's words once each, its language's stop words left out, every language's for an unknown
// one, a word kept when it has a letter and 3 characters, 2 beyond Latin), the range's `size` most frequent in at
// least `minPosts` posts (most posts, then code-point order), the posts holding each pair of them, the pairs kept as
// theme-graph.ts states (at least `minPosts` posts with both, more than chance, Jaccard index at least `minJaccard`),
// the graph's communities (theme-graph.ts's `communities`: the method itself is the code under test's, its input
// this file's), and each theme's figures: posts with any of its words (the `term` refinement's rule) per wall-clock
// bucket, labels and sentiment as the overview counts them, posts of the range before, top posts.
import type { Bucket } from '@contract/insights';
import { CORRECTED_SCORE } from '@contract/sentiment-corrections';
import { STOP_WORDS } from '@server/social/insights/words';
import { communities, type Edge } from '@server/social/insights/theme-graph';
import { bucketKey, bucketKeys, byCodePoint } from '../insights-brute-force';
import { engagementOf, scoped, type RefScope } from './figures';
import type { RefPost } from './query';
import { tokens } from './tokens';

const ALL_STOP = new Set(Object.values(STOP_WORDS).flat());
const stopOf = (language: string | null) =>
  language === null ? ALL_STOP : new Set(STOP_WORDS[language] ?? []);

function kept(word: string): boolean {
  const points = [...word].map((c) => c.codePointAt(0)!);
  if (!/[A-Za-z]/.test(word) && !points.some((p) => p > 0x7f)) return false;
  return points.length >= (points.some((p) => p > 0x24f) ? 2 : 3);
}

/** The post's words as the conversation counts them. */
const countedWords = (post: RefPost) => {
  const stop = stopOf(post.language);
  return new Set(
    tokens(post.text)
      .filter((t) => !stop.has(t.word) && kept(t.word))
      .map((t) => t.word),
  );
};
/** The post's words as the `term` refinement reads them: all of them. */
const allWords = (post: RefPost) => new Set(tokens(post.text).map((t) => t.word));

export interface ThemeRule {
  size: number;
  minPosts: number;
  minJaccard: number;
  minWords: number;
  top: number;
}

export function themeFigures(
  posts: RefPost[],
  scope: RefScope,
  bucket: Bucket,
  rule: ThemeRule,
  limit: number,
) {
  const current = scoped(posts, scope);
  const before = scoped(posts, scope, 2 * scope.from - scope.to, scope.from);
  const wordSets = current.map(countedWords);
  const counts = new Map<string, number>();
  for (const set of wordSets) for (const w of set) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words = [...counts]
    .filter(([, n]) => n >= rule.minPosts)
    .sort(([a, x], [b, y]) => y - x || byCodePoint(a, b))
    .slice(0, rule.size)
    .map(([value, n]) => ({ value, posts: n }));
  const pairs = new Map<string, { i: number; j: number; posts: number }>();
  for (const set of wordSets)
    for (let i = 0; i < words.length; i += 1)
      for (let j = i + 1; j < words.length; j += 1)
        if (set.has(words[i]!.value) && set.has(words[j]!.value)) {
          const pair = pairs.get(`${i} ${j}`) ?? { i, j, posts: 0 };
          pair.posts += 1;
          pairs.set(`${i} ${j}`, pair);
        }
  const pairList = [...pairs.values()].sort((a, b) => a.i - b.i || a.j - b.j);
  const edges: Edge[] = pairList.flatMap(({ i, j, posts: both }) => {
    const [x, y] = [words[i]!, words[j]!];
    const jaccard = both / (x.posts + y.posts - both);
    const chance = both * current.length > x.posts * y.posts;
    if (both < rule.minPosts || !chance || jaccard < rule.minJaccard) return [];
    const [a, b] = [x.value, y.value].sort(byCodePoint);
    return [{ a: a!, b: b!, weight: jaccard }];
  });
  const postsOf = new Map(words.map((w) => [w.value, w.posts]));
  const themes = communities(edges)
    .filter((group) => group.length >= rule.minWords)
    .map((group) => {
      const terms = group
        .map((value) => ({ value, posts: postsOf.get(value)! }))
        .sort((a, b) => b.posts - a.posts || byCodePoint(a.value, b.value));
      const has = (post: RefPost) => {
        const all = allWords(post);
        return terms.some((t) => all.has(t.value));
      };
      const mine = current.filter(has);
      const buckets = new Map(bucketKeys(scope.from, scope.to, scope.zone, bucket).map((k) => [k, 0]));
      const sentiment = { positive: 0, neutral: 0, negative: 0, not_rated: 0, sum: 0 };
      for (const post of mine) {
        const key = bucketKey(post.at, scope.zone, bucket);
        buckets.set(key, buckets.get(key)! + 1);
        const corrected = scope.corrections.get(post.id);
        if (!corrected && !post.rated) sentiment.not_rated += 1;
        else {
          sentiment[corrected ?? post.label] += 1;
          sentiment.sum += corrected ? CORRECTED_SCORE[corrected] : Math.fround(post.sentiment);
        }
      }
      const rated = sentiment.positive + sentiment.neutral + sentiment.negative;
      return {
        terms,
        posts: mine.length,
        previous_posts: before.filter(has).length,
        over_time: [...buckets].map(([local, n]) => ({ local, posts: n })),
        sentiment: {
          positive: sentiment.positive,
          neutral: sentiment.neutral,
          negative: sentiment.negative,
          not_rated: sentiment.not_rated,
          average: rated ? sentiment.sum / rated : null,
        },
        top: [...mine]
          .sort((a, b) => engagementOf(b) - engagementOf(a) || b.id - a.id)
          .slice(0, rule.top)
          .map((p) => p.id),
      };
    })
    .sort((a, b) => b.posts - a.posts || byCodePoint(a.terms[0]!.value, b.terms[0]!.value))
    .slice(0, limit);
  return { posts: current.length, words, pairs: pairList, edges, themes };
}
