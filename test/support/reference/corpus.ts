// Generated corpora for the reference evaluator's property tests: profiles and posts whose texts stay within the
// tokens' rule (tokens.ts: words of letters and digits, CJK and emoji runs, hashtags, mentions, plain punctuation; no
// URLs, e-mails, hosts or hyphenated words), written through the change path as the importer writes them, and the
// queries to ask of them (every operator of server/query/README.md, on the corpora's own words).
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { parseQuery } from '@server/query/index';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { normaliseDomains } from '@contract/domains';
import { extractHashtags, extractMentions } from '@server/social/corpus/text';
import type { TestServer } from '../server-harness';
import type { RefPost } from './query';

export { withDomains } from './links';

type Platform = 'x' | 'instagram' | 'tiktok' | 'youtube' | 'facebook' | 'reddit';

/** The authors: handles in mixed case and with `_`, an unknown country, no followers. */
const AUTHORS: Array<{ handle: string; platform: Platform; followers: number; country: string | null }> = [
  { handle: 'Alice', platform: 'x', followers: 1200, country: 'US' },
  { handle: 'bob_k', platform: 'instagram', followers: 500, country: 'KR' },
  { handle: 'Carla', platform: 'tiktok', followers: 500, country: 'ES' },
  { handle: 'hana', platform: 'youtube', followers: 90_000, country: 'JP' },
  { handle: 'anon', platform: 'reddit', followers: 0, country: null },
  { handle: 'dave', platform: 'x', followers: 15, country: 'US' },
  { handle: 'Eve', platform: 'facebook', followers: 3000, country: 'GB' },
];

/** Words of the texts: Latin with and without accents and capitals, digits, Hangul, kana and Han runs, emoji. */
const WORDS = [
  'coffee',
  'Coffee',
  'tea',
  'latte',
  'oat',
  'milk',
  'barista',
  'baristas',
  'shop',
  'Café',
  'ÉTÉ',
  'straße',
  'v2',
  '2026',
  "don't",
  'stop',
  '東京タワーに行った',
  '東京',
  'ラーメン',
  '서울에서',
  '커피',
  '노바X',
  '🔥',
  '☕',
  '🔥🔥',
] as const;
const TAGS = ['#coffee', '#LatteArt', '#커피', '#v2', '@alice', '@bob_k', '@Hana'];
const SEPARATORS = [' ', ' ', ' ', ', ', '! ', ' — ', '🔥'];

const KINDS = ['original', 'reply', 'repost', 'quote'] as const;
const MEDIA = ['text', 'image', 'video', 'link'] as const;
const LANGUAGES = ['en', 'es', 'ko', 'ja', null] as const;

/** Windows the posts fall in: New York's clocks going back (1 November 2026) and forward (8 March), and around. */
const WINDOWS: Array<[string, string]> = [
  ['2026-10-01T00:00:00Z', '2026-11-15T00:00:00Z'],
  ['2026-11-01T03:00:00Z', '2026-11-01T09:00:00Z'],
  ['2026-03-08T04:00:00Z', '2026-03-08T10:00:00Z'],
  // Pacific/Chatham's change of 27 September 2026 at a quarter past the UTC hour.
  ['2026-09-26T12:00:00Z', '2026-09-26T16:00:00Z'],
];

/** A generated post before it is written: its author by index into AUTHORS. */
export interface GeneratedPost {
  author: number;
  at: number;
  text: string;
  language: (typeof LANGUAGES)[number];
  kind: (typeof KINDS)[number];
  media: (typeof MEDIA)[number];
  likes: number;
  comments: number;
  shares: number;
  views: number | null;
  sentiment: number;
  /** The linked domains as a source gives them (URLs or hosts); none when not given (links.ts, withDomains). */
  domains?: string[];
  /** The post's address at its source (links.ts, withUrls); none when not given. */
  url?: string;
}

const textArb = fc
  .array(fc.tuple(fc.constantFrom(...WORDS, ...WORDS, ...TAGS), fc.constantFrom(...SEPARATORS)), {
    minLength: 1,
    maxLength: 9,
  })
  .map((parts) =>
    parts
      .map(([word, separator]) => word + separator)
      .join('')
      .trim(),
  );

const atArb = fc.integer({ min: 0, max: WINDOWS.length - 1 }).chain((w) => {
  const [from, to] = WINDOWS[w]!.map(Date.parse) as [number, number];
  return fc.integer({ min: from, max: to - 1 });
});

const postArb: fc.Arbitrary<GeneratedPost> = fc.record({
  author: fc.integer({ min: 0, max: AUTHORS.length - 1 }),
  at: atArb,
  text: textArb,
  language: fc.constantFrom(...LANGUAGES),
  kind: fc.constantFrom(...KINDS),
  media: fc.constantFrom(...MEDIA),
  // Small numbers, so that ties in engagement are common.
  likes: fc.integer({ min: 0, max: 6 }),
  comments: fc.integer({ min: 0, max: 3 }),
  shares: fc.integer({ min: 0, max: 2 }),
  views: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  sentiment: fc.integer({ min: -100, max: 100 }).map((n) => n / 100),
});

/** A corpus of `size` posts, the same for the same seed. */
export const generatedCorpus = (seed: number, size: number): GeneratedPost[] =>
  fc.sample(fc.array(postArb, { minLength: size, maxLength: size }), { seed, numRuns: 1 })[0]!;

const labelOf = (sentiment: number): RefPost['label'] =>
  sentiment > 0.25 ? 'positive' : sentiment < -0.25 ? 'negative' : 'neutral';

/**
 * Writes the authors and `posts` through the change path (insertProfiles, insertPosts; hashtags and mentions from the
 * text as the importer extracts them, domains from the links as it normalises a source's) and answers the posts as
 * the reference sees them, with their ids.
 */
export async function writeCorpus(server: TestServer, posts: GeneratedPost[], tag = 'g'): Promise<RefPost[]> {
  const authorIds = await insertProfiles(
    server.db,
    AUTHORS.map((a, i) => ({
      platform: a.platform,
      externalId: `${tag}a${i}`,
      handle: a.handle,
      displayName: a.handle.toUpperCase(),
      followers: a.followers,
      verified: false,
      country: a.country,
    })),
  );
  const rows = posts.map((p, i) => {
    const author = AUTHORS[p.author]!;
    return {
      ...p,
      platform: author.platform,
      externalId: `${tag}p${i}`,
      authorId: authorIds[p.author]!,
      postedAt: new Date(p.at),
      hashtags: extractHashtags(p.text),
      mentions: extractMentions(p.text),
      domains: normaliseDomains(p.domains ?? []),
      sentimentLabel: labelOf(p.sentiment),
      // Every third neutral post "not rated" (the corpus says so, as the importer records the scorer's rule).
      sentimentRated: labelOf(p.sentiment) !== 'neutral' || i % 3 !== 1,
    };
  });
  const ids = await insertPosts(server.db, rows);
  const tagsOf = await writeTags(server, ids);
  return rows.map((row, i) => {
    const author = AUTHORS[posts[i]!.author]!;
    return {
      id: ids[i]!,
      at: row.at,
      platform: row.platform,
      language: row.language,
      kind: row.kind,
      media: row.media,
      text: row.text,
      likes: row.likes,
      comments: row.comments,
      shares: row.shares,
      views: row.views,
      hashtags: row.hashtags,
      mentions: row.mentions,
      domains: row.domains,
      url: row.url ?? null,
      sentiment: row.sentiment,
      label: row.sentimentLabel,
      rated: row.sentimentRated,
      authorId: row.authorId,
      handle: author.handle,
      followers: author.followers,
      country: author.country,
      tags: tagsOf[i]!,
    };
  });
}

/** The reference workspace ('w', as scopesOf asks) and its tags: Drinks by hand, Coffee by a rule, Unused on none. */
export const REF_TAGS = {
  drinks: '00000000-0000-4000-8000-0000000000d1',
  coffee: '00000000-0000-4000-8000-0000000000c1',
  unused: '00000000-0000-4000-8000-0000000000e1',
} as const;
const REF_CATEGORY = '00000000-0000-4000-8000-0000000000ca';
const REF_RULE = '00000000-0000-4000-8000-0000000000a1';

/**
 * Tags on the posts `ids` (the i-th post by its index), through post_tags as the API and the rules write it, and the
 * tags each then carries by the plain rule (manual row decides, else any rule's): Drinks set by hand on every 4th;
 * Coffee set by the rule on every 3rd, removed by hand on every 6th of those and set by hand on every 7th.
 */
async function writeTags(server: TestServer, ids: number[]): Promise<string[][]> {
  await server.db.execute(
    sql`INSERT INTO workspaces (id, name) VALUES ('w', 'Reference') ON CONFLICT DO NOTHING`,
  );
  await server.db.execute(sql`INSERT INTO tag_categories (id, workspace_id, name)
    VALUES (${REF_CATEGORY}, 'w', 'Topic') ON CONFLICT DO NOTHING`);
  for (const [name, id] of Object.entries(REF_TAGS)) {
    await server.db.execute(sql`INSERT INTO tags (id, workspace_id, category_id, name)
      VALUES (${id}, 'w', ${REF_CATEGORY}, ${name}) ON CONFLICT DO NOTHING`);
  }
  // The rule's cursor past every post: only the rows written here are its own.
  await server.db.execute(sql`INSERT INTO tag_rules (id, workspace_id, tag_id, query, cursor)
    VALUES (${REF_RULE}, 'w', ${REF_TAGS.coffee}, 'coffee', ${Number.MAX_SAFE_INTEGER}) ON CONFLICT DO NOTHING`);
  const rows: Array<{ tag: string; post: number; rule: string | null; removed: boolean }> = [];
  const carried = ids.map((post, i) => {
    const tags: string[] = [];
    if (i % 4 === 0) {
      rows.push({ tag: REF_TAGS.drinks, post, rule: null, removed: false });
      tags.push(REF_TAGS.drinks);
    }
    if (i % 3 === 0) rows.push({ tag: REF_TAGS.coffee, post, rule: REF_RULE, removed: false });
    const manual = i % 7 === 0 ? false : i % 3 === 0 && i % 6 === 0 ? true : null;
    if (manual !== null) rows.push({ tag: REF_TAGS.coffee, post, rule: null, removed: manual });
    if (manual === false || (manual === null && i % 3 === 0)) tags.push(REF_TAGS.coffee);
    return tags;
  });
  for (let at = 0; at < rows.length; at += 1000) {
    const chunk = rows.slice(at, at + 1000);
    await server.db
      .execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id, removed)
      SELECT 'w', r.post, r.tag::uuid, CASE WHEN r.rule IS NULL THEN 'manual' ELSE 'rule' END, r.rule::uuid, r.removed
      FROM json_to_recordset(${JSON.stringify(chunk)}::json) AS r(tag text, post bigint, rule text, removed boolean)`);
  }
  return carried;
}

// Queries: every operator over the corpora's words, and words they do not hold.
const wordTerm = fc.constantFrom(
  'coffee',
  'COFFEE',
  'tea',
  'latte',
  'oat',
  'milk',
  'barista',
  'shop',
  'café',
  'été',
);
const termArb = fc.oneof(
  wordTerm,
  fc.constantFrom(
    'Straße',
    'v2',
    '2026',
    "don't",
    't',
    'decaf',
    'x🔥',
    '東京',
    'タワー',
    '서울',
    '커피',
    '노바x',
    '🔥',
    '☕',
    '🔥🔥',
  ),
);
const phraseArb = fc.constantFrom(
  '"oat milk"',
  '"coffee tea"',
  '"Coffee, latte"',
  '"don\'t stop"',
  '"barista shop"',
  '"東京 ラーメン"',
  '"latte 🔥 oat"',
  // Phrase slop: the words in any order within a run of their count + n positions.
  '"milk oat"~1',
  '"tea coffee"~2',
  '"coffee coffee"~3',
  '"oat latte milk"~2',
  '"shop barista"~4',
);
const wildcardArb = fc.constantFrom(
  ...['barist*', 'lat*', 'co*', 'caf*', 'ÉT*', '東京*', 'v2*'],
  // Masks: ? one character, a final * any rest.
  ...['co?fee', 'Co??ee', 'barist?', 'barist?*', 'caf?', 'ét?', 'la?te*', 'te?'],
);
/** Case-sensitive words: as the texts have them, in another case, and one no text has. */
const casedArb = fc.constantFrom(
  '{Coffee}',
  '{coffee}',
  '{COFFEE}',
  '{Café}',
  '{café}',
  '{ÉTÉ}',
  '{été}',
  '{v2}',
  '{X}',
);
const tagArb = fc.constantFrom(
  '#coffee',
  '#latteart',
  '#LatteArt',
  '#커피',
  '#tea',
  '@alice',
  '@BOB_K',
  '@hana',
  '@eve',
);
const fieldArb = fc.constantFrom(
  'author:alice',
  'author:@Bob_K',
  'author:nobody',
  'platform:x',
  'site:instagram',
  'lang:ko',
  'lang:en',
  'country:US',
  'country:kr',
  'is:reply',
  'is:Original',
  'is:quote',
  'followers:[100 TO *]',
  'followers:[0 TO 15]',
  'engagement:[3 TO 8]',
  'engagement:[* TO 2]',
  'site:bbc.co.uk',
  'url:https://blog.example.com/x',
  'site:youtube.com',
  'source:reddit',
  'instance:mastodon.social',
);
/** A NEAR's operand: words, phrases and wildcards, or an OR of them (never a substring term). */
const proximityArb = fc.oneof(
  wordTerm,
  fc.constantFrom('"oat milk"', '"coffee tea"', "don't"),
  fc.constantFrom('barist*', 'lat*', 'co*'),
  fc.tuple(wordTerm, fc.constantFrom('milk', 'lat*', '"oat milk"')).map(([a, b]) => `(${a} OR ${b})`),
);
const nearArb = fc
  .tuple(proximityArb, fc.integer({ min: 1, max: 6 }), fc.constantFrom('', 'f'), proximityArb)
  .map(([a, n, f, b]) => `${a} NEAR/${n}${f} ${b}`);

const { query: queryTextArb } = fc.letrec<{ query: string }>((tie) => ({
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    termArb,
    phraseArb,
    wildcardArb,
    casedArb,
    tagArb,
    fieldArb,
    nearArb,
    tie('query').map((q) => `NOT (${q})`),
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `(${a}) (${b})`),
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `(${a}) AND (${b})`),
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `(${a}) OR (${b})`),
  ),
}));

/** Query texts that parse (server/query's parser), over every operator of the language. */
export const queryArb = queryTextArb.filter((text) => parseQuery(text).ok);

const SUBREDDITS = ['subreddit:coffee', 'subreddit:r/Tea', 'subreddit:LatteArt', 'subreddit:android'];

/**
 * queryArb's queries and, beside them, `subreddit:` alone, negated and joined to them (for corpora with addresses:
 * links.ts, withUrls). Apart from queryArb so that the other property tests draw the queries they drew before.
 */
export const subredditQueryArb = fc
  .oneof(
    queryArb,
    fc.constantFrom(...SUBREDDITS, ...SUBREDDITS.map((field) => `NOT ${field}`)),
    fc
      .tuple(fc.constantFrom(...SUBREDDITS), fc.constantFrom('AND', 'OR', 'AND NOT'), queryArb)
      .map(([field, operator, query]) => `${field} ${operator} (${query})`),
  )
  .filter((text) => parseQuery(text).ok);
