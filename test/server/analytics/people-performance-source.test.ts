// The people, performance and filtered-profiles dashboards answer from the analytics store when the store holds
// exactly the corpus version PostgreSQL's snapshot sees, and each answer is PostgreSQL's, field by field: for every
// post and the typed queries of the bench mix, in zones across DST (New York, Kolkata, Chatham), with every refinement
// with and without exclude; the filtered profiles page by page with their cursors, in each sort. The routes read the
// running service (as server/main.ts gives it). A store that is behind is not read, and the answer comes from
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProfileSort } from '@contract/insights';
import type { AnalyticsService } from '@server/analytics/service';
import { people, profileList } from '@server/social/insights/people';
import { performance } from '@server/social/insights/performance';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace } from '@test/support/workspaces.fixtures';
import {
  contextOf,
  insertChathamPosts,
  picksOf,
  RANGES,
  refinements,
  rounded,
  TYPED_QUERIES,
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

beforeAll(async () => {
  server = await createTestServer();
  await generatedCorpus(server, 37);
  await insertChathamPosts(server);
  picks = await picksOf(server);
  running = await runningService(server, 'people-source-');
  service = running.service;
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const LIMIT = 10;
const ZONES = ['America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'];

/** The answer read with the running service, which must have asked the store; and PostgreSQL's alone. */
async function bothSources<T>(answer: (service?: AnalyticsService) => Promise<T>) {
  const query = vi.spyOn(service.store!, 'query');
  try {
    const fromStore = await answer(service);
    expect(query, 'the store was read').toHaveBeenCalled();
    return { fromStore, fromPostgres: await answer() };
  } finally {
    query.mockRestore();
  }
}

const plain: Case[] = [
  ...ZONES.map((zone) => ({ name: `every post, ${zone}, 30 days`, zone, range: RANGES['30 days of days']! })),
  {
    name: 'every post, New York, hours over the clocks going back',
    zone: 'America/New_York',
    range: RANGES['a day of hours over the clocks going back']!,
  },
  {
    name: 'every post, New York, hours over the clocks going forward',
    zone: 'America/New_York',
    range: RANGES['hours over the clocks going forward']!,
  },
  {
    name: 'every post, Chatham, hours over its clocks going forward',
    zone: 'Pacific/Chatham',
    range: RANGES['hours over Chatham going forward']!,
  },
  {
    name: 'every post, Kolkata, a week at odd bounds',
    zone: 'Asia/Kolkata',
    range: RANGES['a week at odd bounds']!,
  },
  ...TYPED_QUERIES.map((query, i) => ({
    name: `${query}, ${ZONES[i % ZONES.length]}`,
    zone: ZONES[i % ZONES.length]!,
    range: RANGES['120 days of weeks']!,
    query,
  })),
];

/** Every refinement of the fixtures, with and without exclude, in New York over 30 days and Chatham over its change. */
const refined = (): Case[] =>
  (
    [
      ['America/New_York', RANGES['30 days of days']!],
      ['Pacific/Chatham', RANGES['hours over Chatham going forward']!],
    ] as const
  ).flatMap(([zone, range]) =>
    refinements(zone, picks).flatMap((refine) =>
      [false, true].map((exclude) => ({
        name: `${zone}, ${refine.field}${exclude ? ' excluded' : ''}`,
        zone,
        range,
        refine: [{ ...refine, exclude }],
      })),
    ),
  );

/** Runs `check` on each case, naming the case in a failure. */
async function eachCase<C extends Case>(cases: C[], check: (c: C) => Promise<void>) {
  for (const c of cases)
    await check(c).catch((error: Error) => {
      error.message = `${c.name}: ${error.message}`;
      throw error;
    });
}

async function comparePeople(c: Case) {
  const context = await contextOf(server, c);
  const { fromStore, fromPostgres } = await bothSources((s) => people(server.db, context, LIMIT, s));
  expect(rounded(fromStore)).toEqual(rounded(fromPostgres));
}

async function comparePerformance(c: Case) {
  const context = await contextOf(server, c);
  const { fromStore, fromPostgres } = await bothSources((s) => performance(server.db, context, s));
  expect(rounded(fromStore)).toEqual(rounded(fromPostgres));
}

/**
 * Every page of the filtered profiles in `sort`, `size` at a time: each page from the store equals PostgreSQL's for
 * the same cursor (the profiles, the total and the next cursor), and the pages together are every author once, as
 * many as the total every page gives.
 */
async function walkProfiles(c: Case, sort: ProfileSort, size: number) {
  const seen: number[] = [];
  const totals = new Set<number>();
  let cursor: string | undefined;
  do {
    // A fresh context per page: a cursor sets the context's range from its own.
    const context = await contextOf(server, c);
    const { fromStore, fromPostgres } = await bothSources((s) =>
      profileList(server.db, context, { sort, limit: size, cursor }, s),
    );
    expect(fromStore, `${sort}, after ${seen.length} profiles`).toEqual(fromPostgres);
    totals.add(fromStore.total);
    seen.push(...fromStore.profiles.map((p) => p.id));
    cursor = fromStore.next_cursor ?? undefined;
  } while (cursor);
  const [total] = [...totals];
  expect(totals.size, `${sort}: one total on every page`).toBe(1);
  expect(seen.length, `${sort}: every author`).toBe(total);
  expect(new Set(seen).size, `${sort}: each once`).toBe(total);
  return total;
}

describe('people from the analytics store', () => {
  it.each(plain)('equals PostgreSQL’s answer: $name', comparePeople);
  it('equals PostgreSQL’s answer with every refinement, with and without exclude', async () => {
    await eachCase(refined(), comparePeople);
  }, 180_000);
});

describe('performance from the analytics store', () => {
  it.each(plain)('equals PostgreSQL’s answer: $name', comparePerformance);
  it('equals PostgreSQL’s answer with every refinement, with and without exclude', async () => {
    await eachCase(refined(), comparePerformance);
  }, 180_000);
});

describe('filtered profiles from the analytics store', () => {
  const walks: Array<Case & { size: number }> = [
    {
      name: 'every post, Kolkata, 120 days',
      zone: 'Asia/Kolkata',
      range: RANGES['120 days of weeks']!,
      size: 15,
    },
    {
      name: 'every post, Chatham, hours over its clocks going forward',
      zone: 'Pacific/Chatham',
      range: RANGES['hours over Chatham going forward']!,
      size: 4,
    },
    {
      name: 'nova, New York, 120 days',
      zone: 'America/New_York',
      range: RANGES['120 days of weeks']!,
      query: 'nova',
      size: 9,
    },
    {
      name: 'followers excluded, New York, 30 days',
      zone: 'America/New_York',
      range: RANGES['30 days of days']!,
      refine: [{ field: 'followers', values: [{ min: 100, max: 5_000 }], exclude: true }],
      size: 11,
    },
  ];
  it.each(walks)(
    'every page of each sort equals PostgreSQL’s: $name',
    async (c) => {
      for (const sort of ['mentions', 'followers', 'engagement'] as const) {
        const total = await walkProfiles(c, sort, c.size);
        expect(total, 'the scope has authors').toBeGreaterThan(c.size);
      }
    },
    180_000,
  );
  it('every page of the typed queries and the refinements equals PostgreSQL’s, the sorts in turn', async () => {
    const sorts = ['mentions', 'followers', 'engagement'] as const;
    const cases = [...typedCases('America/New_York'), ...refined()];
    await eachCase(
      cases.map((c, i) => ({ ...c, name: `${c.name}, by ${sorts[i % 3]}`, sort: sorts[i % 3]! })),
      async (c) => {
        await walkProfiles(c, c.sort, 25);
      },
    );
  }, 180_000);
});

describe('the dashboards’ routes', () => {
  it('read the running service’s store, and answer as the functions do', async () => {
    const viewer = await server.createUser();
    const workspace = await createWorkspace(server, [[viewer, 'viewer']], { timeZone: 'Asia/Kolkata' });
    const filters = { from: RANGES['30 days of days']![0], to: RANGES['30 days of days']![1] };
    const context = await contextOf(server, {
      name: 'route',
      zone: 'Asia/Kolkata',
      range: RANGES['30 days of days']!,
    });
    // As server/main.ts does once the service has started.
    server.app.deps.analytics = service;
    try {
      for (const [url, body, answer] of [
        ['people', { limit: LIMIT }, () => people(server.db, context, LIMIT)],
        ['performance', {}, () => performance(server.db, context)],
        [
          'filtered-profiles',
          { sort: 'engagement', limit: LIMIT },
          () => profileList(server.db, context, { sort: 'engagement', limit: LIMIT }),
        ],
      ] as const) {
        const query = vi.spyOn(service.store!, 'query');
        let reads = 0;
        const res = await as(server, viewer, {
          method: 'POST',
          url: `/social/insights/${url}`,
          payload: { workspace_id: workspace.id, query: '', filters, ...body },
        }).finally(() => {
          reads = query.mock.calls.length;
          query.mockRestore();
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(reads, `${url}: the store was read`).toBeGreaterThan(0);
        // The route's own fields beside the dashboard's are left out, and its cursor is the list's, sealed
        // (`<cursor>.<seal>`).
        const { next_cursor: sealed, ...answered } = res.json<Record<string, unknown>>();
        const { next_cursor: cursor, ...expected } = (await answer()) as unknown as Record<string, unknown>;
        expect(rounded(Object.fromEntries(Object.keys(expected).map((k) => [k, answered[k]])))).toEqual(
          rounded(expected),
        );
        expect(typeof sealed === 'string' ? sealed.split('.')[0] : sealed).toEqual(cursor);
      }
    } finally {
      server.app.deps.analytics = undefined;
    }
  });
});

describe('a store behind PostgreSQL', () => {
  it('is not read: people, performance and filtered profiles answer from PostgreSQL', async () => {
    const context = await contextOf(server, plain[0]!);
    const behind = storeBehind(service);
    const query = vi.spyOn(service.store!, 'query');
    const answers = [
      await people(server.db, context, LIMIT, behind),
      await performance(server.db, context, behind),
      await profileList(server.db, context, { sort: 'followers', limit: LIMIT }, behind),
    ];
    expect(query).not.toHaveBeenCalled();
    query.mockRestore();
    expect(answers).toEqual([
      await people(server.db, context, LIMIT),
      await performance(server.db, context),
      await profileList(server.db, context, { sort: 'followers', limit: LIMIT }),
    ]);
  });
});
