// POST /social/insights/compare: every figure of each compared saved query equals that query's own overview for the
// same saved query and filters; shares of voice; the overlap against a brute force over every row; who may call it
// and what is refused; the body's filters applied to every query; and the plan (one dashboard request a call, the
// history clip).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResponse } from '@contract/insights-compare';
import type { OverviewResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { plansFile } from '@test/support/billing.fixtures';
import { as, createTeam, createWorkspace, type Person, type Team } from '@test/support/workspaces.fixtures';
import {
  allRows,
  insertCorpus,
  insertSavedQuery,
  matchingIds,
  type Row,
} from '@test/support/insights.fixtures';
import { inScope, type Scope } from '@test/support/insights-brute-force';

let server: TestServer;
let team: Team;
let rows: Row[];
/** A workspace in New York (buckets across the clocks going back), with the team's viewer as its viewer. */
let newYork: string;

/** The saved queries compared, each with its own filters (platforms or languages) as stored. */
const SAVED: Array<{ query: string; filters: { platforms?: string[]; languages?: string[] } }> = [
  { query: 'coffee OR tea', filters: {} },
  { query: '#launch', filters: { languages: ['en', 'es'] } },
  { query: 'outage OR camera', filters: { platforms: ['x', 'instagram', 'tiktok'] } },
  // Posts of unknown language match no language filter: the overlap must not lose the others they match.
  { query: 'battery OR phone OR love', filters: { languages: ['en'] } },
];
const ids = new Map<string, string[]>();

const RANGES = {
  'two weeks over the clocks going back': ['2026-10-25T04:00:00Z', '2026-11-08T05:00:00Z'],
  'hours over the clocks going back': ['2026-10-31T16:00:00Z', '2026-11-02T05:00:00Z'],
} as const;

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  newYork = (
    await createWorkspace(
      server,
      [
        [team.owner, 'owner'],
        [team.viewer, 'viewer'],
      ],
      { timeZone: 'America/New_York' },
    )
  ).id;
  await insertCorpus(server);
  rows = await allRows(server);
  for (const workspace of [team.workspaceId, newYork]) {
    const saved: string[] = [];
    for (const { query, filters } of SAVED)
      saved.push(await insertSavedQuery(server, workspace, query, filters));
    ids.set(workspace, saved);
  }
});
afterAll(() => server.close());

const post = (person: Person | null, url: string, payload: Record<string, unknown>) =>
  as(server, person, { method: 'POST', url: `/social/insights/${url}`, payload });

async function compare(workspace: string, savedQueryIds: string[], filters: Record<string, unknown>) {
  const res = await post(team.viewer, 'compare', {
    workspace_id: workspace,
    saved_query_ids: savedQueryIds,
    filters,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<CompareResponse>();
}

async function overview(workspace: string, savedQueryId: string, filters: Record<string, unknown>) {
  const res = await post(team.viewer, 'overview', {
    workspace_id: workspace,
    saved_query_id: savedQueryId,
    filters,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<OverviewResponse>();
}

/** Each compared query's figures against its own overview's, and the shares. */
async function expectOverviews(workspace: string, body: CompareResponse, filters: Record<string, unknown>) {
  const overviews = await Promise.all(
    body.queries.map((q) => overview(workspace, q.saved_query_id!, filters)),
  );
  const first = overviews[0]!;
  expect(body.time_zone).toBe(first.time_zone);
  expect(body.range).toEqual(first.range);
  expect(body.previous_range).toEqual(first.previous_range);
  expect(body.bucket).toBe(first.bucket);
  expect(body.over_time.map((b) => [b.start, b.local])).toEqual(
    first.over_time.map((b) => [b.start, b.local]),
  );
  overviews.forEach((o, i) => {
    const q = body.queries[i]!;
    expect(q.query).toBe(o.query);
    expect(q.mentions).toEqual(o.totals.mentions);
    expect(q.sentiment).toEqual(o.sentiment);
    expect(q.platforms).toEqual(o.platforms.map(({ platform, mentions }) => ({ platform, mentions })));
    expect(q.top_authors).toEqual(o.top_people.slice(0, 5));
    expect(body.over_time.map((b) => b.mentions[i])).toEqual(o.over_time.map((b) => b.mentions));
  });
  const total = overviews.reduce((sum, o) => sum + o.totals.mentions.value, 0);
  expect(total).toBeGreaterThan(0);
  body.queries.forEach((q, i) =>
    expect(q.share).toBeCloseTo(overviews[i]!.totals.mentions.value / total, 12),
  );
  expect(body.queries.reduce((sum, q) => sum + q.share, 0)).toBeCloseTo(1, 12);
  return overviews;
}

/** The brute force's scope of each saved query, with the body's filters overriding its own key by key. */
async function scopesOf(range: readonly [string, string], overrides: { platforms?: string[] } = {}) {
  return Promise.all(
    SAVED.map(async ({ query, filters }): Promise<Scope> => ({
      ids: await matchingIds(server, query),
      from: Date.parse(range[0]),
      to: Date.parse(range[1]),
      ...filters,
      ...overrides,
    })),
  );
}

function expectOverlap(body: CompareResponse, scopes: Scope[]) {
  const matched = scopes.map((scope) => new Set(rows.filter(inScope(scope)).map((r) => r.id)));
  const twoOrMore = rows.filter((r) => matched.filter((set) => set.has(r.id)).length >= 2).length;
  const pairs = [];
  for (let a = 0; a < matched.length; a += 1) {
    for (let b = a + 1; b < matched.length; b += 1) {
      pairs.push({ a, b, posts: [...matched[a]!].filter((id) => matched[b]!.has(id)).length });
    }
  }
  expect(body.overlap).toEqual({ posts: twoOrMore, pairs });
  // The corpus makes them overlap, or the test would prove little.
  expect(twoOrMore).toBeGreaterThan(0);
  return matched;
}

describe("every figure is the query's own overview's", () => {
  it.each(Object.entries(RANGES))('%s', async (_name, [from, to]) => {
    const filters = { from, to };
    const body = await compare(newYork, ids.get(newYork)!, filters);
    expect(body.queries.map((q) => q.saved_query_id)).toEqual(ids.get(newYork));
    expect(body.queries.map((q) => q.name)).toEqual(SAVED.map((s) => `Saved ${s.query}`));
    expect(body.time_zone).toBe('America/New_York');
    expect(body.bucket).toBe(from.startsWith('2026-10-25') ? 'day' : 'hour');
    await expectOverviews(newYork, body, filters);
    // Against the brute force too: the mentions are the rows each scope matches.
    const matched = expectOverlap(body, await scopesOf([from, to]));
    body.queries.forEach((q, i) => expect(q.mentions.value).toBe(matched[i]!.size));
    expect(body.counted).toMatch(
      /^4 saved queries compared over the posts posted from .* America\/New_York\. /,
    );
    expect(body.counted).toContain('Share of voice');
    expect(body.counted).toContain('Overlap');
    expect(body.history_clip).toBeUndefined();
  });

  it('keeps the order asked for, a second pair and a different order answered apart (the answer cache)', async () => {
    const [a, b, c] = ids.get(team.workspaceId)!;
    const filters = {
      from: RANGES['two weeks over the clocks going back'][0],
      to: RANGES['two weeks over the clocks going back'][1],
    };
    const ab = await compare(team.workspaceId, [a!, b!], filters);
    const ba = await compare(team.workspaceId, [b!, a!], filters);
    const ac = await compare(team.workspaceId, [a!, c!], filters);
    expect(ab.queries.map((q) => q.saved_query_id)).toEqual([a, b]);
    expect(ba.queries.map((q) => q.saved_query_id)).toEqual([b, a]);
    expect(ac.queries.map((q) => q.saved_query_id)).toEqual([a, c]);
    expect(ba.queries.map((q) => q.mentions)).toEqual([ab.queries[1]!.mentions, ab.queries[0]!.mentions]);
    expect(ba.over_time.map((t) => t.mentions)).toEqual(
      ab.over_time.map((t) => [t.mentions[1], t.mentions[0]]),
    );
    expect(ac.queries[1]!.mentions).not.toEqual(ab.queries[1]!.mentions);
    expect(ab.overlap.pairs).toHaveLength(1);
    await expectOverviews(team.workspaceId, ac, filters);
  });

  it('answers shares of 0 when no query has a mention', async () => {
    const body = await compare(team.workspaceId, ids.get(team.workspaceId)!.slice(0, 2), {
      from: '2020-01-01T00:00:00Z',
      to: '2020-01-08T00:00:00Z',
    });
    expect(body.queries.map((q) => [q.mentions.value, q.share])).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(body.overlap).toEqual({ posts: 0, pairs: [{ a: 0, b: 1, posts: 0 }] });
    expect(body.over_time.every((b) => b.mentions.every((n) => n === 0))).toBe(true);
  });
});

describe('the filters given apply to every query', () => {
  it("platforms override each saved query's own", async () => {
    const range = RANGES['two weeks over the clocks going back'];
    const filters = { from: range[0], to: range[1], platforms: ['x', 'tiktok'] };
    const body = await compare(team.workspaceId, ids.get(team.workspaceId)!, filters);
    for (const q of body.queries) {
      expect(q.platforms.length).toBeGreaterThan(0);
      for (const { platform } of q.platforms) expect(['x', 'tiktok']).toContain(platform);
    }
    await expectOverviews(team.workspaceId, body, filters);
    const matched = expectOverlap(body, await scopesOf(range, { platforms: ['x', 'tiktok'] }));
    body.queries.forEach((q, i) => expect(q.mentions.value).toBe(matched[i]!.size));
    // The third query keeps instagram on its own, which the filters took away.
    const own = await compare(team.workspaceId, ids.get(team.workspaceId)!, { from: range[0], to: range[1] });
    expect(own.queries[2]!.platforms.map((p) => p.platform)).toContain('instagram');
  });
});

describe('who may call it, and what is refused', () => {
  const RANGE = { from: '2026-10-25T04:00:00Z', to: '2026-11-08T05:00:00Z' };
  const call = (person: Person | null, body: Record<string, unknown>) =>
    post(person, 'compare', {
      workspace_id: team.workspaceId,
      saved_query_ids: ids.get(team.workspaceId)!.slice(0, 2),
      filters: RANGE,
      ...body,
    });

  it('members 200 (a viewer too), outsiders 404, signed out 401', async () => {
    for (const person of [team.owner, team.manager, team.viewer]) {
      const res = await call(person, {});
      expect(res.statusCode, res.body).toBe(200);
    }
    const outsider = await call(team.outsider, {});
    expect(outsider.statusCode).toBe(404);
    const missing = await call(team.viewer, { workspace_id: 'no-such-workspace' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual(outsider.json());
    expect((await call(null, { saved_query_ids: 'not even valid' })).statusCode).toBe(401);
  });

  it.each([
    ['one query', 1, /at least 2 saved queries/],
    ['six queries', 6, /at most 5 saved queries/],
  ])('refuses %s with a 400', async (_name, count, message) => {
    const saved = ids.get(team.workspaceId)!;
    const many = [...saved, ...Array.from({ length: 3 }, () => crypto.randomUUID())].slice(0, count);
    const res = await call(team.viewer, { saved_query_ids: many });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [{ path: 'saved_query_ids', message: expect.stringMatching(message) }],
    });
  });

  it('refuses the same saved query twice with a 400', async () => {
    const [a, b] = ids.get(team.workspaceId)!;
    const res = await call(team.viewer, { saved_query_ids: [a, b, a] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      fields: [{ path: 'saved_query_ids', message: 'A saved query is compared once' }],
    });
  });

  it("refuses another workspace's saved query (or one that does not exist) as not found", async () => {
    const [a] = ids.get(team.workspaceId)!;
    const [other] = ids.get(newYork)!;
    for (const stranger of [other, crypto.randomUUID()]) {
      const res = await call(team.viewer, { saved_query_ids: [a, stranger] });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('refuses saved queries keeping different date ranges unless the filters give one', async () => {
    const [a] = ids.get(team.workspaceId)!;
    const dated = await insertSavedQuery(server, team.workspaceId, 'tea', RANGE);
    const res = await call(team.viewer, { saved_query_ids: [a, dated], filters: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_range',
      message: expect.stringMatching(/filters\.from/),
    });
    // Its own range given to the others: the same range, compared.
    expect((await call(team.viewer, { saved_query_ids: [a, dated] })).statusCode).toBe(200);
  });

  it('refuses a body that is not one with a clear 400', async () => {
    const res = await call(team.viewer, { saved_query_ids: ['not-a-uuid', 'nor-this'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('within the plan', () => {
  const DAY = 86_400_000;
  let limited: TestServer;
  beforeAll(async () => {
    limited = await createTestServer({
      BILLING_PLANS_FILE: plansFile({ dashboard_requests_per_month: 2, history_days: 30 }),
    });
  });
  afterAll(() => limited.close());

  it('counts one dashboard request a call, clips the range and refuses one before the history', async () => {
    const limitedTeam = await createTeam(limited);
    const saved: string[] = [];
    for (const query of ['coffee', 'tea', 'camera']) {
      saved.push(await insertSavedQuery(limited, limitedTeam.workspaceId, query));
    }
    const compareOn = (filters: object) =>
      as(limited, limitedTeam.viewer, {
        method: 'POST',
        url: '/social/insights/compare',
        payload: { workspace_id: limitedTeam.workspaceId, saved_query_ids: saved, filters },
      });
    const before = await compareOn({
      from: new Date(Date.now() - 90 * DAY).toISOString(),
      to: new Date(Date.now() - 45 * DAY).toISOString(),
    });
    expect(before.statusCode).toBe(409);
    expect(before.json().error).toBe('history_limit');

    const from = new Date(Date.now() - 60 * DAY).toISOString();
    const to = new Date(Date.now() - DAY).toISOString();
    const clipped = await compareOn({ from, to });
    expect(clipped.statusCode, clipped.body).toBe(200);
    const body = clipped.json<CompareResponse>();
    expect(body.history_clip).toEqual({ requested_from: from, history_days: 30 });
    expect(body.range).toEqual({
      from: new Date(Math.floor(Date.now() / DAY) * DAY - 30 * DAY).toISOString(),
      to,
    });

    // Three queries, one request of the month's two: the second call passes, the third is refused.
    expect((await compareOn({ from, to })).statusCode).toBe(200);
    const over = await compareOn({ from, to });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe('dashboard_volume_limit');
  });
});
