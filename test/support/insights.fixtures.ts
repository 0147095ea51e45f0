// A small, seeded corpus for the insights tests, and every row of it read back for brute-force expectations. Posts
// cluster around the two DST changes of America/New_York in 2026 (8 March, 1 November), with a spike, words that
// only appear late (emerging), ties in engagement, duplicate hashtags, links, and text in en, es, ko and ja.
import { sql } from 'drizzle-orm';
import { posts, profiles, savedQueries } from '@server/db/social-schema';
import { matching, parsed, type RefPost } from './reference/query';
import { lower, words } from './reference/tokens';
import type { TestServer } from './server-harness';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';

type Platform = (typeof profiles.$inferInsert)['platform'];
type Post = typeof posts.$inferInsert;

const AUTHORS: Array<{
  handle: string;
  platform: Platform;
  followers: number;
  verified: boolean;
  country: string | null;
  language: string | null;
}> = [
  { handle: 'Alice', platform: 'x', followers: 1200, verified: true, country: 'US', language: 'en' },
  {
    handle: 'bob.kim',
    platform: 'instagram',
    followers: 500,
    verified: false,
    country: 'KR',
    language: 'ko',
  },
  { handle: 'carla_es', platform: 'tiktok', followers: 500, verified: false, country: 'ES', language: 'es' },
  { handle: 'hana', platform: 'youtube', followers: 90_000, verified: true, country: 'JP', language: 'ja' },
  { handle: 'anon', platform: 'reddit', followers: 0, verified: false, country: null, language: null },
  { handle: 'dave', platform: 'x', followers: 15, verified: false, country: 'US', language: 'en' },
  { handle: 'eve', platform: 'facebook', followers: 3000, verified: false, country: 'GB', language: 'en' },
  { handle: 'Frank', platform: 'x', followers: 3000, verified: true, country: 'US', language: 'en' },
  { handle: 'gina', platform: 'tiktok', followers: 42, verified: false, country: 'MX', language: 'es' },
  { handle: 'solo', platform: 'instagram', followers: 7, verified: false, country: 'US', language: 'en' },
];

const WORDS: Record<string, string[]> = {
  en: [
    'coffee',
    'tea',
    'battery',
    'camera',
    'phone',
    'love',
    'great',
    'the',
    'and',
    'with',
    'this',
    'ok',
    'day',
  ],
  es: ['café', 'fútbol', 'partido', 'que', 'para', 'genial', 'batería'],
  ko: ['커피', '노바X', '진짜', '최고예요', '배터리'],
  ja: ['東京タワーに行った', 'ラーメン大好き', 'これ', 'カメラ最高'],
};
const HASHTAGS = ['launch', 'coffee', 'novax', '커피', 'fútbol'];
const MENTIONS = ['novamobile', 'alice', 'cafe.bar', 'hana'];
const DOMAINS = ['example.com', 'news.example.org', 'shop.test'];
const KINDS = ['original', 'reply', 'repost', 'quote'] as const;
const MEDIA = ['text', 'image', 'video', 'link'] as const;

/** mulberry32: a tiny seeded PRNG, so the corpus is the same on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}

const ms = (iso: string) => Date.parse(iso);

/** Windows of time the posts fall in: [start, end) and how many. */
const WINDOWS: Array<[string, string, number]> = [
  ['2026-10-08T00:00:00Z', '2026-11-09T12:00:00Z', 330],
  // The hour the clocks go back (01:00–02:00 happens twice) and around it.
  ['2026-11-01T04:30:00Z', '2026-11-01T07:30:00Z', 30],
  // A spike on 3 November (New York).
  ['2026-11-03T14:00:00Z', '2026-11-03T20:00:00Z', 45],
  // The hour the clocks go forward (02:00–03:00 does not exist) and around it.
  ['2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z', 70],
];
/** Words that only appear from this instant on, in most posts: emerging. */
const LATE = ms('2026-10-29T00:00:00Z');

function buildCorpus(seed = 7): Array<Omit<Post, 'authorId'> & { author: number }> {
  const random = prng(seed);
  const out: Array<Omit<Post, 'authorId'> & { author: number }> = [];
  let n = 0;
  for (const [start, end, count] of WINDOWS) {
    for (let i = 0; i < count; i += 1) {
      n += 1;
      // The last author (solo) writes one post only, added below.
      const author = random.int(AUTHORS.length - 1);
      const profile = AUTHORS[author]!;
      const at = ms(start) + Math.floor(random.next() * (ms(end) - ms(start)));
      const language = random.chance(0.1) ? null : (profile.language ?? random.pick(['en', 'es']));
      const vocabulary = WORDS[language ?? 'en']!;
      const words = Array.from({ length: 2 + random.int(5) }, () => random.pick(vocabulary));
      if (at >= LATE && random.chance(0.6)) words.push('outage');
      if (random.chance(0.05)) words.push('2026', 'x');
      const domains = random.chance(0.2) ? [random.pick(DOMAINS)] : [];
      const link = domains.length ? ` https://${domains[0]}/p/${n}` : '';
      const hashtags = Array.from({ length: random.int(3) }, () => random.pick(HASHTAGS));
      // A hashtag repeated in the array is still one hashtag of the post.
      if (random.chance(0.05) && hashtags.length) hashtags.push(hashtags[0]!);
      const mentions = random.chance(0.3) ? [random.pick(MENTIONS)] : [];
      const sentiment = Math.round((random.next() * 2 - 1) * 100) / 100;
      out.push({
        author,
        platform: profile.platform,
        externalId: `p${n}`,
        text: `${words.join(' ')}${link}${hashtags.map((h) => ` #${h}`).join('')}`,
        language,
        postedAt: new Date(at),
        kind: random.pick(KINDS),
        media: random.pick(MEDIA),
        // Small numbers, so engagement ties are common.
        likes: random.int(6),
        comments: random.int(3),
        shares: random.chance(0.2) ? random.int(4) : 0,
        views: random.chance(0.5) ? random.int(1000) : null,
        hashtags,
        mentions,
        domains,
        sentiment,
        sentimentLabel: sentiment > 0.25 ? 'positive' : sentiment < -0.25 ? 'negative' : 'neutral',
      });
    }
  }
  // On the edges of the tests' ranges: `from` is in, `to` is out.
  for (const [i, at] of ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z', '2026-10-31T16:00:00Z'].entries()) {
    out.push({ ...out[i + 1]!, externalId: `edge${i}`, postedAt: new Date(at) });
  }
  // The only post of its author: an overperformance of 1.
  out.push({
    ...out[0]!,
    author: 9,
    platform: 'instagram',
    externalId: 'solo',
    likes: 9,
    comments: 9,
    shares: 9,
  });
  return out;
}

export async function insertCorpus(server: TestServer, seed = 7) {
  const ids: number[] = [];
  for (const [i, author] of AUTHORS.entries()) {
    const [rowId] = await insertProfiles(server.db, [
      { ...author, externalId: `a${i}`, displayName: author.handle.toUpperCase() },
    ]);
    ids.push(rowId!);
  }
  const rows = buildCorpus(seed).map(({ author, ...post }) => ({ ...post, authorId: ids[author]! }));
  await insertPosts(server.db, rows);
}

export async function insertSavedQuery(
  server: TestServer,
  workspaceId: string,
  query: string,
  filters: Record<string, unknown> = {},
) {
  const [row] = await server.db
    .insert(savedQueries)
    .values({ workspaceId, name: `Saved ${query}`, query, filters })
    .returning({ id: savedQueries.id });
  return row!.id;
}

/**
 * A post as the brute force sees it: every column the reference evaluator reads (RefPost), plus its engagement and the
 * words the conversation counts.
 */
export interface Row extends RefPost {
  engagement: number;
  /** The words of its text outside links, lower-cased, in order (with repeats). */
  words: string[];
}

/**
 * A link as the store finds it in the lower-cased text (LINK_RUN in server/analytics/layout.ts): a run between spaces
 * holding `://`, or `/`, `.` or `@` between two letters or digits. The conversation's words are those outside links.
 */
const LINK_RUN = /[^\p{Z}\t-\r]*(?::\/\/|[\p{L}\p{M}\p{N}][/.@][\p{L}\p{M}\p{N}])[^\p{Z}\t-\r]*/gu;

/** The words the conversation counts: the reference rule's (reference/tokens.ts) outside links. */
const conversationWords = (text: string) => words(lower(text).replace(LINK_RUN, ' '));

export async function allRows(server: TestServer): Promise<Row[]> {
  const result = await server.db.execute<Omit<Row, 'words'>>(sql`
    SELECT p.id::int, (extract(epoch FROM p.posted_at) * 1000)::float8 AS at, p.platform, p.language, p.kind,
      p.media, p.text, p.likes, p.comments, p.shares, p.views::float8 AS views, p.engagement, p.hashtags,
      p.mentions, p.domains, p.sentiment, p.sentiment_label AS label, a.id::int AS "authorId", a.handle, a.followers,
      a.country
    FROM posts p JOIN profiles a ON a.id = p.author_id`);
  return result.rows.map((row) => ({ ...row, words: conversationWords(row.text) }));
}

/** The ids of the posts a query matches, by the reference evaluator (the query language has its own tests). */
export async function matchingIds(server: TestServer, query: string): Promise<Set<number>> {
  const rows = await allRows(server);
  if (query.trim() === '') return new Set(rows.map((r) => r.id));
  return new Set(matching(parsed(query), rows).map((r) => r.id));
}
