// One matcher for every tracked query: a post is split once (post.ts), its words, word prefixes, substrings (one
// Aho–Corasick pass over the lower-cased text), hashtags, mentions and field values name the queries it may match
// through an index over the queries' covers (cover.ts), and only those, with the queries that have no cover, are
// tested exactly (evaluate.ts). The index only prunes: a query is tested whenever a post could match it, so the
// answers are the query language's (server/query/README.md, "Matching many queries at once").
import type { QueryField, QueryNode } from '../ast';
import { AhoCorasick } from './aho-corasick';
import { coverOf, type CoverKey } from './cover';
import { compileTest, SubstringPatterns, type Scan, type Test } from './evaluate';
import { viewOf, type MatchPost } from './post';

export type { MatchPost } from './post';

export interface TrackedQuery {
  id: string;
  ast: QueryNode;
}

export interface QueryMatcher {
  /** The ids of the queries `post` matches, in the order the queries were given. */
  match(post: MatchPost): string[];
  /** How many queries have no cover and are tested on every post. */
  readonly alwaysTested: number;
  /** How many exact tests of a query on a post the matcher has made so far (what the index left of queries × posts). */
  readonly tested: number;
}

/** Prefixes are found by their first two code units (a wildcard has at least two characters before `*`). */
const BUCKET = 2;

/** Query numbers by key. */
class Postings {
  readonly map = new Map<string, number[]>();
  add(key: string, query: number) {
    const list = this.map.get(key);
    if (!list) this.map.set(key, [query]);
    else if (list[list.length - 1] !== query) list.push(query);
  }
}

/** A field's values → the queries whose cover names them. */
type ByValue = Map<string, number[]>;

export function compileMatcher(queries: ReadonlyArray<TrackedQuery>): QueryMatcher {
  const substrings = new SubstringPatterns();
  const tests: Test[] = queries.map((query) => compileTest(query.ast, substrings));
  const words = new Postings();
  const hashtags = new Postings();
  const mentions = new Postings();
  const fields = new Map<QueryField, Postings>(
    (['author', 'platform', 'lang', 'country', 'subreddit'] as const).map((field) => [field, new Postings()]),
  );
  const prefixes = new Postings();
  /** Substring pattern number → the queries it covers. */
  const bySubstring: number[][] = [];
  const always: number[] = [];

  const index = (key: CoverKey, query: number) => {
    switch (key.kind) {
      case 'word':
        return words.add(key.value, query);
      case 'prefix':
        return prefixes.add(key.value, query);
      case 'hashtag':
        return hashtags.add(key.value, query);
      case 'mention':
        return mentions.add(key.value, query);
      case 'field':
        return fields.get(key.field)!.add(key.value, query);
      case 'substring': {
        const id = substrings.id(key.value);
        const list = (bySubstring[id] ??= []);
        if (list[list.length - 1] !== query) list.push(query);
      }
    }
  };
  queries.forEach((query, i) => {
    const cover = coverOf(query.ast);
    if (cover === null) always.push(i);
    else for (const key of cover.keys) index(key, i);
  });

  // Prefixes by their first code units; a shorter one (none the parser gives) is tried on every word.
  const buckets = new Map<string, Array<[string, number[]]>>();
  const short: Array<[string, number[]]> = [];
  for (const entry of prefixes.map) {
    if (entry[0].length < BUCKET) short.push(entry);
    else {
      const head = entry[0].slice(0, BUCKET);
      const bucket = buckets.get(head);
      if (bucket) bucket.push(entry);
      else buckets.set(head, [entry]);
    }
  }
  const automaton = substrings.patterns.length > 0 ? new AhoCorasick(substrings.patterns) : null;
  const seen = new Int32Array(queries.length);
  const found = new Int32Array(substrings.patterns.length);
  let stamp = 0;
  let candidates: number[] = [];
  let tested = 0;
  // Defined once, not per post: the per-post work allocates as little as it can.
  const mark = (list: readonly number[] | undefined) => {
    if (list === undefined) return;
    for (let k = 0; k < list.length; k++) {
      const query = list[k]!;
      if (seen[query] !== stamp) {
        seen[query] = stamp;
        candidates.push(query);
      }
    }
  };
  const prefixed = (word: string, entries: ReadonlyArray<[string, number[]]> | undefined) => {
    if (entries) for (const [prefix, list] of entries) if (word.startsWith(prefix)) mark(list);
  };
  const substringFound = (id: number) => {
    if (found[id] === stamp) return;
    found[id] = stamp;
    mark(bySubstring[id]);
  };
  const [authors, platforms, langs, countries, subreddits] = (
    ['author', 'platform', 'lang', 'country', 'subreddit'] as const
  ).map((field) => fields.get(field)!.map) as [ByValue, ByValue, ByValue, ByValue, ByValue];

  return {
    alwaysTested: always.length,
    get tested() {
      return tested;
    },
    match(post) {
      // Each post its own stamp; before the stamps would overflow (2³¹ posts: weeks of a firehose), start again.
      if (stamp === 0x7fffffff) {
        seen.fill(0);
        found.fill(0);
        stamp = 0;
      }
      stamp += 1;
      candidates = [];
      const view = viewOf(post);
      for (const word of view.positions.keys()) {
        mark(words.map.get(word));
        if (short.length > 0) prefixed(word, short);
        prefixed(word, buckets.get(word.slice(0, BUCKET)));
      }
      for (const tag of view.hashtags) mark(hashtags.map.get(tag));
      for (const mention of view.mentions) mark(mentions.map.get(mention));
      mark(authors.get(view.handle));
      mark(platforms.get(post.platform));
      if (post.language !== null) mark(langs.get(post.language));
      if (post.country !== null) mark(countries.get(post.country));
      if (view.subreddit !== null) mark(subreddits.get(view.subreddit));
      automaton?.scan(view.lowered, substringFound);
      mark(always);
      candidates.sort((a, b) => a - b);
      tested += candidates.length;
      const scan: Scan = { view, found, stamp };
      const ids: string[] = [];
      for (const query of candidates) if (tests[query]!(scan)) ids.push(queries[query]!.id);
      return ids;
    },
  };
}
