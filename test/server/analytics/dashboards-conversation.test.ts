// The conversation dashboard's hashtags, mentions and domains from the store against PostgreSQL's conversation(),
// exactly, on the corpus of dashboards.fixtures.ts (duplicate hashtags in a post, ties in code-point order), in every
// zone and range, with field queries, the platforms and languages filters, and every refinement with and without
// exclude.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storeConversationTags } from '@server/analytics/insights/conversation';
import { conversation } from '@server/social/insights/conversation';
import {
  contextOf,
  listRefinements,
  matchOf,
  openBench,
  picksOf,
  RANGES,
  refinements,
  ZONES,
  type Bench,
  type Case,
  type Picks,
} from './dashboards.fixtures';

let bench: Bench;
let picks: Picks;

beforeAll(async () => {
  bench = await openBench();
  picks = await picksOf(bench.server);
}, 240_000);
afterAll(() => bench?.close());

const LIMIT = 6;

async function compare(c: Case) {
  const context = await contextOf(bench.server, c);
  const pg = await conversation(bench.server.db, context, LIMIT);
  const store = await storeConversationTags(
    bench.store,
    { context, match: await matchOf(bench.server, context) },
    LIMIT,
  );
  expect(store).toEqual({ hashtags: pg.hashtags, mentions: pg.mentions, domains: pg.domains });
  return pg.hashtags.length;
}

describe('hashtags, mentions and domains from the store equal PostgreSQL', () => {
  const cases: Case[] = [
    ...ZONES.flatMap((zone) =>
      Object.entries(RANGES).map(([name, range]) => ({ name: `${zone}, ${name}`, zone, range })),
    ),
    {
      name: 'NOT lang:en',
      zone: 'America/New_York',
      range: RANGES['120 days of weeks']!,
      query: 'NOT lang:en',
    },
  ];
  it.each(cases)('$name', async (c) => {
    await compare(c);
  });
  it('with every refinement, with and without exclude', async () => {
    let lists = 0;
    for (const refine of refinements('America/New_York', picks))
      for (const exclude of [false, true])
        lists += await compare({
          name: refine.field,
          zone: 'America/New_York',
          range: RANGES['30 days of days']!,
          refine: [{ ...refine, exclude }],
        });
    expect(lists).toBeGreaterThan(0);
  });
  it("of a text query refined by a hashtag, mention or domain, read from its token slices' tags", async () => {
    const statements = vi.spyOn(bench.store, 'query');
    let lists = 0;
    for (const query of ['nova', '"midnight harbor"'])
      for (const refine of await listRefinements(bench.server))
        for (const exclude of [false, true])
          lists += await compare({
            name: `${query}, ${refine.field}`,
            zone: 'America/New_York',
            range: RANGES['120 days of weeks']!,
            query,
            refine: [{ ...refine, exclude }],
          });
    // The refinement is looked for in the token rows' tags (storeFrom's slices), not in the posts' own lists.
    expect(statements.mock.calls.filter(([sql]) => sql.includes('hasAny(p.tags')).length).toBe(12);
    statements.mockRestore();
    expect(lists).toBeGreaterThan(0);
  });
  it('with a platforms or languages filter, read from their token slices', async () => {
    const statements = vi.spyOn(bench.store, 'query');
    const range = RANGES['120 days of weeks']!;
    let lists = 0;
    const three = ['x', 'tiktok', 'instagram'] as Case['platforms'];
    for (const c of [
      { name: 'x and tiktok', zone: 'America/New_York', range, platforms: ['x', 'tiktok'] },
      { name: 'en and es', zone: 'Asia/Kolkata', range, languages: ['en', 'es'] },
      { name: 'x, en', zone: 'America/New_York', range, platforms: ['x'], languages: ['en'] },
      {
        name: 'tiktok, NOT #launch',
        zone: 'Pacific/Chatham',
        range,
        platforms: ['tiktok'],
        query: 'NOT #launch',
      },
      { name: 'three platforms, en', zone: 'UTC', range, platforms: three, languages: ['en'] },
      { name: 'three platforms', zone: 'UTC', range, platforms: three },
    ] satisfies Case[])
      lists += await compare(c);
    // One statement each, over the slices of the filter of fewer values (the platforms' on a tie), not the range's
    // posts; beyond two values, the range's posts (a statement a list).
    const slices = statements.mock.calls.map(([sql]) => /tok IN \(sipHash64\('([pl])'/.exec(sql)?.[1] ?? '-');
    expect(slices).toEqual(['p', 'l', 'p', 'p', 'l', '-', '-', '-']);
    statements.mockRestore();
    expect(lists).toBeGreaterThan(0);
  });
});
