// Themes of a range from the store (server/social/insights/themes.ts groups the words and makes the answer). Three
// kinds of statement, each over every matching post (no sample):
// - storeThemeWords: the range's most frequent words as the conversation counts them (`toks` joined to the lexicon,
//   the stop words of the post's language left out, the kept-word shape), each with its posts, and the range's posts;
// - storeWordPairs: for those words, the posts of the range holding each pair of them (a pair once per post; a word
//   counted in a post as above: not one of its language's stop words), in one statement;
// - storeThemeFigures: for groups of words (the themes), the posts with any of a group's words (the `term` refinement's
//   rule: `hasAny(p.toks, …)`) in the range per bucket with their labels, sentiment and first posts, and in the range
//   before, in one statement (the top posts were a statement of their own, reading the range once more).
// The last two keep the posts with any of the words (`hasAny`) and map each such post's tokens to the words' themes
// or indexes (`transform`: a hash map built once a statement), one row a post: faster than joining every post's
// tokens out and grouping them by post again (server/social/insights/README.md, "Themes").
import type { Bucket } from '@contract/insights';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { countedTokens, stopWords, type StoreWordsRule } from './conversation';
import {
  previousRange,
  ratedSql,
  storeFrom,
  storeLabel,
  storeSentiment,
  zonePlaceholder,
  type StoreScope,
} from './scope';
import { localBucketSql, timeKey } from './time';

/** The rule the caller gives (server/social/insights/themes.ts): the conversation's words, how many, how frequent. */
export interface StoreThemesRule extends Pick<
  StoreWordsRule,
  'stopLanguages' | 'stopWords' | 'link' | 'letter' | 'beyondLatin'
> {
  /** The most frequent words kept (most posts first, then the word's bytes) … */
  words: number;
  /** … each in at least this many posts of the range. */
  minPosts: number;
}

export interface StoreThemeWords {
  /** Posts of the range. */
  posts: number;
  /** Most posts first, then the word's bytes. */
  words: Array<{ value: string; posts: number }>;
}

/** The range's most frequent words, as the conversation counts them, and the range's posts. */
export async function storeThemeWords(
  store: AnalyticsStore,
  scope: StoreScope,
  rule: StoreThemesRule,
): Promise<StoreThemeWords> {
  const { context, db = STORE_DATABASE } = scope;
  const stopped = stopWords(store, rule);
  await stopped.ready;
  const params = new StoreParams();
  const { from, where } = storeFrom(scope, params, zonePlaceholder(context, params), ['toks', 'lang']);
  const [link, letter, beyondLatin] = [rule.link, rule.letter, rule.beyondLatin].map((r) =>
    params.add(r, 'String'),
  );
  const min = params.add(rule.minPosts, 'UInt64');
  // The counter (token 0, before every post's tokens) is no lexeme's: it counts the posts. A word is once however
  // often the lexicon holds it before its merge.
  const rows = await store.query<{ counter: number; word: string; n: string }>(
    `SELECT counter, word, n FROM (
      SELECT x.tok = 0 AS counter, l.word AS word, any(x.n) AS n
      FROM ${db}.lexicon l RIGHT JOIN (
        SELECT tok, count() AS n
        FROM (SELECT ${countedTokens(stopped.digest, 'p.toks', 'p.lang')} AS toks FROM ${from} WHERE ${where})
        ARRAY JOIN arrayPushFront(toks, 0) AS tok
        GROUP BY tok HAVING tok = 0 OR n >= ${min}) x ON x.tok = l.tok
      GROUP BY counter, word)
    WHERE counter OR (NOT match(word, ${link}) AND match(word, ${letter})
      AND lengthUTF8(word) >= if(match(word, ${beyondLatin}), 2, 3))
    ORDER BY counter DESC, n DESC, word
    LIMIT ${Number(rule.words) + 1}`,
    params.values,
  );
  const counter = rows.find((row) => Number(row.counter) === 1);
  return {
    posts: Number(counter?.n ?? 0),
    words: rows
      .filter((row) => Number(row.counter) !== 1)
      .map((row) => ({ value: row.word, posts: Number(row.n) })),
  };
}

/** For each word, the languages whose posts do not count it (its stop words there; every language's for ''). */
function droppedOf(words: readonly string[], rule: Pick<StoreWordsRule, 'stopLanguages' | 'stopWords'>) {
  const index = new Map(words.map((word, i) => [word, i + 1]));
  const languages: string[] = [];
  const positions: number[] = [];
  const unknown = new Set<number>();
  rule.stopWords.forEach((word, i) => {
    const at = index.get(word);
    if (at === undefined) return;
    languages.push(rule.stopLanguages[i]!);
    positions.push(at);
    unknown.add(at);
  });
  for (const at of unknown) {
    languages.push('');
    positions.push(at);
  }
  return { languages, positions };
}

/**
 * The posts of the range holding both words of each pair of `words` (i < j, 0-based indexes), each counted in a post
 * as the conversation counts it; pairs without a post left out. One statement: each post's words among them, as
 * sorted indexes, then every pair of those.
 */
export async function storeWordPairs(
  store: AnalyticsStore,
  scope: StoreScope,
  words: readonly string[],
  rule: Pick<StoreWordsRule, 'stopLanguages' | 'stopWords'>,
): Promise<Array<{ i: number; j: number; posts: number }>> {
  if (words.length < 2) return [];
  const params = new StoreParams();
  const { from, where } = storeFrom(scope, params, zonePlaceholder(scope.context, params), [
    'id',
    'toks',
    'lang',
  ]);
  const dropped = droppedOf(words, rule);
  const top = `arrayMap(w -> sipHash64(w), ${params.add(words, 'Array(String)')})`;
  // A (language, index) pair its language does not count, as one number: the language's hash plus the index.
  const out = `arrayMap((l, x) -> cityHash64(l) + x, ${params.add(dropped.languages, 'Array(String)')},
    ${params.add(dropped.positions, 'Array(UInt64)')})`;
  // Each post's words among them: their 1-based indexes (0 for its other tokens), sorted, less those its language does
  // not count (looked up only for the words held: a tuple of the language and each token took a third more CPU).
  const index = params.add(
    words.map((_, i) => i + 1),
    'Array(UInt64)',
  );
  const held = `arraySort(arrayFilter(x -> NOT has(dropped, x + cityHash64(p.lang)), arrayFilter(x -> x > 0,
    arrayMap(t -> transform(t, top, ${index}, toUInt64(0)), p.toks))))`;
  const rows = await store.query<{ i: string; j: string; n: string }>(
    `WITH ${top} AS top, ${out} AS dropped
    SELECT pair.1 - 1 AS i, pair.2 - 1 AS j, count() AS n
    FROM (SELECT ${held} AS m FROM ${from} WHERE ${where} AND hasAny(p.toks, top) AND length(m) > 1)
    ARRAY JOIN arrayFlatten(arrayMap((a, k) -> arrayMap(b -> (a, b), arraySlice(m, k + 1)), m, arrayEnumerate(m)))
      AS pair
    GROUP BY i, j
    ORDER BY i, j`,
    params.values,
  );
  return rows.map((row) => ({ i: Number(row.i), j: Number(row.j), posts: Number(row.n) }));
}

/** One theme's posts in one bucket of the range (`cur`), or in the range before (`cur` false, `local` ''). */
export interface StoreThemeBucket {
  theme: number;
  cur: boolean;
  local: string;
  posts: number;
  positive: number;
  neutral: number;
  negative: number;
  not_rated: number;
  /** The sentiment scores of the rated posts added up. */
  sentiment_sum: number;
  /** The bucket's first posts of the theme (most engagement, then the higher id), at most the `top` asked; none before. */
  top: Array<{ id: number; engagement: number }>;
}

/**
 * The themes' words as bound arrays (`with`), and `rows(columns)`: over `from` and `where`, one row per post with any
 * of a theme's words, with `columns` and `themes`, the post's themes (0-based, each once).
 */
function themesOf(themes: readonly (readonly string[])[], params: StoreParams, from: string, where: string) {
  const words = themes.flat();
  // 1-based, so that 0 is "none of them".
  const owner = themes.flatMap((theme, t) => theme.map(() => t + 1));
  const toks = `arrayMap(w -> sipHash64(w), ${params.add(words, 'Array(String)')})`;
  const held =
    'arrayMap(x -> x - 1, arrayDistinct(arrayFilter(x -> x > 0, ' +
    'arrayMap(t -> transform(t, tt, owner, toUInt32(0)), p.toks))))';
  return {
    with: `${toks} AS tt, ${params.add(owner, 'Array(UInt32)')} AS owner`,
    rows: (columns: string) =>
      `SELECT ${columns}, ${held} AS themes FROM ${from} WHERE ${where} AND hasAny(p.toks, tt)`,
  };
}

/**
 * Per theme, its posts in each bucket of the range (labels and sentiment as the overview counts them) and in the range
 * before, and each bucket's first `top` posts of the range: one statement over both ranges (the range's top posts of a
 * theme are the first `top` of its buckets' firsts: themeTopPosts).
 */
export async function storeThemeFigures(
  store: AnalyticsStore,
  scope: StoreScope,
  themes: readonly (readonly string[])[],
  bucket: Bucket,
  top: number,
): Promise<StoreThemeBucket[]> {
  if (!themes.length) return [];
  const { context } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const { from, where } = storeFrom(
    scope,
    params,
    zone,
    ['id', 'q', 'ts', 'toks', 'label', 'sentiment', 'engagement'],
    { from: previousRange(context).from, to: context.scope.to },
  );
  const of = themesOf(themes, params, from, where);
  const start = params.add(context.scope.from.getTime(), 'Int64');
  const label = storeLabel(context.corrections, params);
  // Grouped by quarter (or second: timeKey) first, then the groups mapped to wall-clock buckets, as the overview's
  // buckets are: the zone's time is worked out once a quarter rather than once a post. A group's first posts are the
  // least of (-engagement, -id), kept sorted (groupArraySorted), then those of a bucket's groups merged the same way.
  const time = timeKey(context.timeZone, context.scope.from, context.scope.to);
  const n = Number(top);
  const rows = await store.query<{
    theme: string;
    cur: number;
    local: string;
    n: string;
    pos: string;
    neu: string;
    neg: string;
    nr: string;
    s: number;
    top: Array<[string, string]>;
  }>(
    `WITH ${of.with}
    SELECT theme, cur, if(cur, ${localBucketSql(bucket, time.seconds, zone)}, '') AS local, sum(n) AS n,
      sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg, sum(nr) AS nr, sum(s) AS s,
      arraySlice(arraySort(groupArrayArray(top)), 1, ${n}) AS top
    FROM (
      SELECT theme, cur, k, count() AS n, countIf(lab = 1) AS pos, countIf(lab = 0) AS neu,
        countIf(lab = -1) AS neg, countIf(NOT rated) AS nr, sumIf(s, rated) AS s,
        groupArraySortedIf(${n})((-toInt64(engagement), -toInt64(id)), cur) AS top
      FROM (${of.rows(
        `p.ts >= ${start} AS cur, ${time.key} AS k, ${label} AS lab, ${ratedSql(label)} AS rated, ` +
          `${storeSentiment(context.corrections, params)} AS s, p.id AS id, p.engagement AS engagement`,
      )})
      ARRAY JOIN themes AS theme
      GROUP BY theme, cur, k)
    GROUP BY theme, cur, local`,
    params.values,
  );
  return rows.map((row) => ({
    theme: Number(row.theme),
    cur: Number(row.cur) === 1,
    local: row.local,
    posts: Number(row.n),
    positive: Number(row.pos),
    neutral: Number(row.neu),
    negative: Number(row.neg),
    not_rated: Number(row.nr),
    sentiment_sum: row.s,
    top: row.top.map(([engagement, id]) => ({ id: -Number(id), engagement: -Number(engagement) })),
  }));
}

/** A theme's first `top` posts of the range from its buckets' firsts: most engagement, then the higher id. */
export function themeTopPosts(buckets: readonly StoreThemeBucket[], top: number): number[] {
  return buckets
    .flatMap((bucket) => (bucket.cur ? bucket.top : []))
    .sort((a, b) => b.engagement - a.engagement || b.id - a.id)
    .slice(0, top)
    .map((post) => post.id);
}
