// The conversation answers from the analytics store when the store holds exactly the corpus version PostgreSQL's
// snapshot sees, and the whole answer is PostgreSQL's, field by field: hashtags, mentions, domains, the words and the
// emerging words with the sample they were counted in. Compared for every post and the typed queries of the bench mix,
// in zones across DST, with every refinement with and without exclude, and with small sampling caps, so that the
// sampled path (a pilot, a cut per period, one period sampled and the other read whole) is compared as well as the
// whole-period one. Posts with words at the edges of the stop-word and kept-word rules are added to the generated
// corpus. A store that is behind is not read.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConversationResponse } from '@contract/insights-responses';
import type { AnalyticsService } from '@server/analytics/service';
import { insertPosts } from '@server/social/corpus/changes';
import { conversation, type WordSampling } from '@server/social/insights/conversation';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  contextOf,
  picksOf,
  RANGES,
  refinements,
  typedCases,
  type Case,
  type Picks,
  storeBehind,
  runningService,
  generatedCorpus,
} from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;
let picks: Picks;

/**
 * Words at the edges of words.ts's rules, each post's language chosen so that the stop words of one language are left
 * out of its posts only (and every language's out of a post of unknown language): a Latin word of 2 and 3 characters,
 * words beyond Latin (U+0250 on) of 1, 2 and 3, Latin Extended-B's last letter (U+024F) twice, digits, a host name,
 * Japanese and Korean words, and stop words of English, Spanish and Korean.
 */
const EDGE_TEXTS = [
  'edgecase ab abc ɐa ɐ ɏɏ ɏɏɏ 12 1a éé ééé ßa 日本 日 example.com the pero 진짜 porque',
  'edgecase ɐa ɏɏɏ éé ßa 日本 the pero son really',
  'edgecase abc ɐa 日本 진짜 너무 the son',
];
const EDGE_LANGUAGES = ['en', 'es', 'ko', null, 'ja'];
/** Posts without a lexeme (PostgreSQL's parser finds no word in them): counted among a period's posts all the same. */
const WORDLESS_TEXTS = ['🔥🔥 ✨', '!!! ...', '🎉'];

beforeAll(async () => {
  server = await createTestServer();
  await generatedCorpus(server, 31);
  const { rows } = await server.pool.query<{ id: string }>('SELECT id FROM profiles ORDER BY id LIMIT 4');
  // 30 edge posts in the last 15 days of RANGES' 30 days and 10 in the 20 days before them, so that their words rise
  // against the previous period; then 6 wordless posts before those.
  const start = Date.parse(RANGES['30 days of days']![0]);
  await insertPosts(
    server.db,
    Array.from({ length: 46 }, (_, i) => ({
      platform: 'x' as const,
      externalId: `edge${i}`,
      authorId: Number(rows[i % rows.length]!.id),
      text: i < 40 ? EDGE_TEXTS[i % EDGE_TEXTS.length]! : WORDLESS_TEXTS[i % WORDLESS_TEXTS.length]!,
      language: EDGE_LANGUAGES[i % EDGE_LANGUAGES.length]!,
      postedAt: new Date(i < 30 ? start + (15 + i / 2) * 86_400_000 : start - (i - 29) * 2 * 86_400_000),
      kind: 'original' as const,
      media: 'text' as const,
      likes: i % 4,
      comments: 0,
      shares: 0,
      views: null,
      hashtags: [],
      mentions: [],
      domains: [],
      sentiment: ((i % 7) - 3) / 4,
      sentimentLabel:
        i % 7 > 3 ? ('positive' as const) : i % 7 < 3 ? ('negative' as const) : ('neutral' as const),
    })),
  );
  picks = await picksOf(server);
  running = await runningService(server, 'conversation-source-');
  service = running.service;
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** Averages of floating sentiment may differ in their last bits between the engines: 12 significant digits are kept. */
const rounded = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(12)) : v,
  );

const LIMIT = 12;

/** Both sources' whole answers for the case, the store's read (a spy on its queries) and equal to PostgreSQL's. */
async function compare(c: Case, sampling?: WordSampling, limit = LIMIT): Promise<ConversationResponse> {
  const context = await contextOf(server, c);
  const query = vi.spyOn(service.store!, 'query');
  const fromStore = await conversation(server.db, context, limit, sampling, service);
  expect(query).toHaveBeenCalled();
  query.mockRestore();
  const fromPostgres = await conversation(server.db, context, limit, sampling);
  expect(rounded(fromStore)).toEqual(rounded(fromPostgres));
  return fromPostgres;
}

const wholeCases: Case[] = [
  { name: 'every post, 30 days', zone: 'America/New_York', range: RANGES['30 days of days']! },
  {
    name: 'every post, hours over DST',
    zone: 'America/New_York',
    range: RANGES['hours over the clocks going forward']!,
  },
  {
    name: 'every post, hours over Chatham’s change',
    zone: 'Pacific/Chatham',
    range: RANGES['hours over Chatham going forward']!,
  },
  { name: 'every post, a week at odd bounds', zone: 'Asia/Kolkata', range: RANGES['a week at odd bounds']! },
  ...typedCases(),
  {
    name: 'platform:x OR lang:es',
    zone: 'UTC',
    range: RANGES['30 days of days']!,
    query: 'platform:x OR lang:es',
  },
];

describe('the conversation from the analytics store', () => {
  it.each(wholeCases)('equals PostgreSQL’s answer, words counted in every post: $name', async (c) => {
    const answer = await compare(c);
    expect(answer.words_sample.current.estimated || answer.words_sample.previous.estimated).toBe(false);
  });

  it('equals PostgreSQL’s answer at the edges of the stop-word and kept-word rules', async () => {
    const answer = await compare(
      { name: 'edges', zone: 'UTC', range: RANGES['30 days of days']!, query: 'edgecase' },
      undefined,
      40,
    );
    const words = answer.terms.map((t) => t.value);
    // Kept: 3 Latin characters, 2 beyond Latin, and Spanish or Korean stop words in posts of other languages.
    for (const word of ['abc', 'ɐa', 'ɏɏɏ', 'ééé', '日本', 'pero', '진짜'])
      expect(words, word).toContain(word);
    // Left out: 2 Latin characters (U+024F is still Latin), 1 character beyond, no letter, a host name.
    for (const word of ['ab', 'ɏɏ', 'ɐ', '日', '12', 'example.com']) expect(words, word).not.toContain(word);
    // Each of the 5 languages has 6 of the range's 30 edge posts, and every text says "the": it is left out of the
    // English posts and those of unknown language, and counted in the other 18.
    expect(answer.terms.find((t) => t.value === 'the')?.posts).toBe(18);
    expect(answer.emerging.length).toBeGreaterThan(0);
  });

  // Each refinement with and without exclude, words counted in every post and in a sample, of every post and of a
  // text query (whose few posts are read by id when its slices carry the refinement's column, from the posts table
  // otherwise: countedFrom).
  // The refinements' fields, by position (the values, which need the corpus's picks, are made in the test).
  const fields = refinements('UTC', { author: 0, domain: '', word: '' }).map((refine, i) => ({
    field: refine.field,
    i,
  }));
  it.each(fields)(
    'equals PostgreSQL’s answer refined by $field (#$i), with and without exclude',
    { timeout: 120_000 },
    async ({ i }) => {
      const refine = refinements('America/New_York', picks)[i]!;
      let words = 0;
      for (const query of [undefined, 'nova'])
        for (const exclude of [false, true]) {
          const c: Case = {
            name: refine.field,
            zone: 'America/New_York',
            range: RANGES['30 days of days']!,
            query,
            refine: [{ ...refine, exclude }],
          };
          words += (await compare(c)).terms.length;
          words += (await compare(c, { cap: 25, pilotLevel: 1 })).terms.length;
        }
      expect(words).toBeGreaterThan(0);
    },
  );
});

describe('the conversation from the analytics store, words counted in a sample', () => {
  // Small caps, so that the generated corpus's periods (a few hundred posts) are sampled: a pilot at level 1 or 2,
  // cuts at several levels, and caps between the two periods' estimates so that one is sampled and the other not.
  const samplings: WordSampling[] = [
    { cap: 40, pilotLevel: 2 },
    { cap: 9, pilotLevel: 1 },
    { cap: 3, pilotLevel: 1 },
    { cap: 90, pilotLevel: 1 },
    { cap: 150, pilotLevel: 1 },
    { cap: 300, pilotLevel: 6 },
  ];
  const seen = new Set<string>();
  const cases: Case[] = [
    { name: 'every post, 30 days', zone: 'America/New_York', range: RANGES['30 days of days']! },
    { name: 'every post, 120 days', zone: 'Pacific/Chatham', range: RANGES['120 days of weeks']! },
    // A range past the corpus's end, so that the previous period has more posts than the range.
    {
      name: 'every post, past the end',
      zone: 'UTC',
      range: ['2026-11-08T00:00:00Z', '2026-11-22T00:00:00Z'],
    },
    ...typedCases(),
  ];
  it.each(cases)('equals PostgreSQL’s answer over samples: $name', { timeout: 120_000 }, async (c) => {
    for (const sampling of samplings) {
      const { current, previous } = (await compare(c, sampling)).words_sample;
      seen.add(`${current.estimated}/${previous.estimated}`);
    }
  });
  it('compared periods sampled and read whole, both and each alone', () => {
    expect([...seen].sort()).toEqual(['false/false', 'false/true', 'true/false', 'true/true']);
  });

  it('is not read when it is behind PostgreSQL: the answer comes from PostgreSQL', async () => {
    const context = await contextOf(server, cases[0]!);
    const behind = storeBehind(service);
    const query = vi.spyOn(service.store!, 'query');
    const answer = await conversation(server.db, context, LIMIT, samplings[0], behind);
    expect(query).not.toHaveBeenCalled();
    query.mockRestore();
    expect(answer).toEqual(await conversation(server.db, context, LIMIT, samplings[0]));
  });
});
