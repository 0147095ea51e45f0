// A deterministic corpus for discover, with a brute-force twin in JavaScript: texts are lower-case words from a small
// vocabulary (so "contains the word" is exact in both), posted_at and engagement tie on purpose (the id breaks ties),
// and some times differ by less than a millisecond (which a JavaScript Date could not tell apart).
import { sql } from 'drizzle-orm';
import { profiles } from '@server/db/social-schema';
import type { TestServer } from './server-harness';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';

type Platform = (typeof profiles.$inferInsert)['platform'];

interface AuthorSpec {
  key: string;
  platform: Platform;
  followers: number;
  country: string | null;
  verified: boolean;
}

const AUTHORS: AuthorSpec[] = [
  { key: 'ana', platform: 'x', followers: 5000, country: 'US', verified: true },
  { key: 'ben', platform: 'instagram', followers: 1200, country: 'KR', verified: false },
  { key: 'cho', platform: 'x', followers: 90, country: 'KR', verified: false },
  { key: 'dia', platform: 'tiktok', followers: 30000, country: 'ES', verified: true },
  { key: 'eli', platform: 'reddit', followers: 10, country: null, verified: false },
  { key: 'fay', platform: 'youtube', followers: 700, country: 'JP', verified: false },
];

export interface PostSpec {
  key: string;
  author: AuthorSpec;
  text: string;
  language: string | null;
  hashtags: string[];
  /** Microseconds since the epoch: PostgreSQL's precision. */
  micros: bigint;
  likes: number;
  comments: number;
  shares: number;
  engagement: number;
}

const VOCAB = ['coffee', 'tea', 'latte', 'matcha', 'morning', 'shop', 'cold', 'brew', 'milk', 'oat'];
const LANGUAGES = ['en', 'en', 'es', 'ko', null] as const;
/** 2026-03-01T00:00:00Z. */
const START = new Date('2026-03-01T00:00:00Z');
const HOUR_MICROS = 3_600_000_000n;

function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

export function buildPosts(count = 90): PostSpec[] {
  const next = random(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 3 + Math.floor(next() * 4) }, () => pick(VOCAB));
    if (i % 5 === 0) words.push('cold', 'brew');
    const group = BigInt(Math.floor(i / 3));
    // Two posts of each group share their instant; the third is 250 µs later.
    const micros = BigInt(START.getTime()) * 1000n + group * HOUR_MICROS + (i % 3 === 2 ? 250n : 0n);
    const [likes, comments, shares] = [(i * 7) % 12, (i * 3) % 4, i % 3];
    return {
      key: `p${String(i).padStart(3, '0')}`,
      author: AUTHORS[(i * 5 + Math.floor(i / 6)) % AUTHORS.length]!,
      text: words.join(' '),
      language: pick(LANGUAGES),
      hashtags: i % 4 === 0 ? ['latteart'] : i % 7 === 0 ? ['coffee', 'morning'] : [],
      micros,
      likes,
      comments,
      shares,
      engagement: likes + comments + shares,
    };
  });
}

const isoMicros = (micros: bigint) => {
  const millis = micros / 1000n;
  const rest = String(micros % 1000n).padStart(3, '0');
  return new Date(Number(millis)).toISOString().replace('Z', `${rest}Z`);
};

/** Inserts the corpus; returns each post's database id and each author's, by key. */
export async function insertDiscoverCorpus(server: TestServer, specs: PostSpec[]) {
  const authorIds = new Map<string, number>();
  for (const author of AUTHORS) {
    const [rowId] = await insertProfiles(server.db, [
      {
        platform: author.platform,
        externalId: author.key,
        handle: author.key,
        displayName: author.key.toUpperCase(),
        followers: author.followers,
        verified: author.verified,
        country: author.country,
        avatarUrl: `https://example.com/${author.key}.png`,
      },
    ]);
    authorIds.set(author.key, rowId!);
  }
  const rows = await insertPosts(
    server.db,
    specs.map((post) => ({
      platform: post.author.platform,
      externalId: post.key,
      authorId: authorIds.get(post.author.key)!,
      text: post.text,
      language: post.language,
      postedAt: sql`${isoMicros(post.micros)}::timestamptz` as unknown as Date,
      likes: post.likes,
      comments: post.comments,
      shares: post.shares,
      hashtags: post.hashtags,
      url: `https://example.com/p/${post.key}`,
    })),
  );
  return { postIds: new Map(specs.map((post, i) => [post.key, rows[i]!])), authorIds };
}

/** The words of a post, as the query's whole-word matching sees them. */
export const has = (post: PostSpec, word: string) => post.text.split(' ').includes(word);
export const hasPhrase = (post: PostSpec, phrase: string) => ` ${post.text} `.includes(` ${phrase} `);
export const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
