// Themes of a range, by exact counts (no model, no sampling, no generated text). The range's THEME_WORDS most frequent
// words (as the conversation counts them: words.ts), each in at least MIN_PAIR_POSTS posts; the posts holding each pair
// of them (the store, one statement: server/analytics/figures/themes.ts); a graph of the pairs associated beyond chance
// weighted by their Jaccard index, and its communities by a deterministic Louvain (theme-graph.ts). Each community of
// at least MIN_THEME_WORDS words is a theme: its posts are those with any of its words (its drill-down, the `term`
// refinement with its words), counted per bucket with their sentiment as the overview counts them, in the range
// before, and its top posts looked up in PostgreSQL.
import type { ThemesResponse } from '@contract/insights-themes';
import type { Db } from '@server/db/database';
import {
  storeThemeFigures,
  storeThemeWords,
  storeWordPairs,
  themeTopPosts,
  type StoreThemeBucket,
} from '@server/analytics/figures/themes';
import type { StoreScope } from '@server/analytics/figures/scope';
import { bucketStarts } from '@server/analytics/figures/time';
import type { AnalyticsStore } from '@server/analytics/store';
import type { AnalyticsService } from '@server/analytics/service';
import { instantOfWallClock } from '@contract/zoned-time';
import { countedBase, SENTIMENT_COUNTED } from './counted';
import type { InsightScope } from './request';
import { postsByIds, toPost } from './rows';
import { fromStore } from './store-source';
import { byCodePoint, communities, MIN_JACCARD, MIN_PAIR_POSTS, themeEdges } from './theme-graph';
import { bucketFor } from './time';
import { previousPeriod } from './where';
import { STORE_WORD_RULE, WORD_RULE } from './words';

/** The most frequent words of the range that the graph is made of. */
export const THEME_WORDS = 60;
/** A community of fewer words is no theme. */
export const MIN_THEME_WORDS = 2;
/** Each theme's top posts listed. */
const TOP_POSTS = 3;

const THEMES_RULE =
  `The words are the range's ${THEME_WORDS} most frequent (most posts, then code-point order), each in at least ` +
  `${MIN_PAIR_POSTS} posts. Two of them are linked when at least ${MIN_PAIR_POSTS} posts hold both, more often ` +
  `than chance (posts with both × the range's posts > posts with one × posts with the other), and their Jaccard ` +
  `index (posts with both ÷ posts with either) is at least ${MIN_JACCARD}, the link weighing that index. Themes ` +
  `are the communities of those links by Louvain's modularity method, run in a fixed order without randomness, of ` +
  `at least ${MIN_THEME_WORDS} words; a word without a link is in none. A theme's posts are the posts with any of ` +
  `its words (its drill-down); rise = its posts ÷ its posts in the range before; most posts first.`;

/** One theme as the store counts it, before its top posts are looked up. */
interface ThemeRows {
  terms: Array<{ value: string; posts: number }>;
  posts: number;
  previous_posts: number;
  buckets: Map<string, StoreThemeBucket>;
  top: number[];
}

/**
 * The store's themes of the scope: the words, their pairs, the graph's communities, each one's figures; ranked (most
 * posts, then the first word) and the first `limit` kept.
 */
export async function themeRows(store: AnalyticsStore, scope: StoreScope, limit: number) {
  const { context } = scope;
  const found = await storeThemeWords(store, scope, {
    ...STORE_WORD_RULE,
    words: THEME_WORDS,
    minPosts: MIN_PAIR_POSTS,
  });
  const pairs = await storeWordPairs(
    store,
    scope,
    found.words.map((w) => w.value),
    STORE_WORD_RULE,
  );
  const edges = themeEdges(found.words, pairs, found.posts);
  const postsOf = new Map(found.words.map((w) => [w.value, w.posts]));
  const groups = communities(edges)
    .filter((group) => group.length >= MIN_THEME_WORDS)
    .map((group) =>
      group
        .map((value) => ({ value, posts: postsOf.get(value)! }))
        .sort((a, b) => b.posts - a.posts || byCodePoint(a.value, b.value)),
    );
  const words = groups.map((g) => g.map((t) => t.value));
  const bucket = bucketFor(context.scope.from, context.scope.to);
  const figures = await storeThemeFigures(store, scope, words, bucket, TOP_POSTS);
  const themes: ThemeRows[] = groups.map((terms, t) => {
    const own = figures.filter((f) => f.theme === t);
    return {
      terms,
      posts: own.filter((f) => f.cur).reduce((sum, f) => sum + f.posts, 0),
      previous_posts: own.filter((f) => !f.cur).reduce((sum, f) => sum + f.posts, 0),
      buckets: new Map(own.filter((f) => f.cur).map((f) => [f.local, f])),
      top: themeTopPosts(own, TOP_POSTS),
    };
  });
  themes.sort((a, b) => b.posts - a.posts || byCodePoint(a.terms[0]!.value, b.terms[0]!.value));
  return { posts: found.posts, words: found.words, pairs, edges, bucket, themes: themes.slice(0, limit) };
}

/** The themes of the request's range, against the range before. */
export async function themes(
  db: Db,
  context: InsightScope,
  limit: number,
  service?: AnalyticsService,
): Promise<ThemesResponse> {
  const { scope, timeZone } = context;
  const found = await fromStore(
    db,
    context,
    service,
    (store, storeScope) => themeRows(store, storeScope, limit),
    async (tx, rows) => {
      const posts = await postsByIds(
        tx,
        rows.themes.flatMap((t) => t.top),
        context,
      );
      return { ...rows, postRows: posts };
    },
  );
  const previous = previousPeriod(context);
  const starts = bucketStarts(found.bucket, timeZone, scope.from, scope.to);
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    previous_range: { from: previous.from.toISOString(), to: previous.to.toISOString() },
    query: context.normalized,
    bucket: found.bucket,
    counted:
      `${countedBase(context)}. Every post of the range and of the range before (of equal length, with the same ` +
      `query, filters and refinements) is counted (no sample). Words: ${WORD_RULE}. ${THEMES_RULE} Buckets are ` +
      `${found.bucket}s of ${timeZone} wall-clock time. ${SENTIMENT_COUNTED}`,
    posts: found.posts,
    words: found.words.length,
    edges: found.edges.length,
    themes: found.themes.map((theme) => {
      const buckets = [...theme.buckets.values()];
      const sum = (key: 'positive' | 'neutral' | 'negative' | 'not_rated' | 'sentiment_sum') =>
        buckets.reduce((total, b) => total + b[key], 0);
      const rated = sum('positive') + sum('neutral') + sum('negative');
      return {
        terms: theme.terms,
        posts: theme.posts,
        previous_posts: theme.previous_posts,
        rise: theme.previous_posts ? theme.posts / theme.previous_posts : null,
        over_time: starts.map((local) => ({
          start: instantOfWallClock(local, timeZone).toISOString(),
          local,
          posts: theme.buckets.get(local)?.posts ?? 0,
        })),
        sentiment: {
          positive: sum('positive'),
          neutral: sum('neutral'),
          negative: sum('negative'),
          not_rated: sum('not_rated'),
          average: rated ? sum('sentiment_sum') / rated : null,
        },
        top_posts: theme.top.flatMap((id) => {
          const post = found.postRows.get(id);
          return post ? [toPost(post, context.corrections)] : [];
        }),
      };
    }),
  };
}
