// POST /social/posts/detail and /social/profiles/detail: who may read them, what is not found or malformed, the terms
// of the view's query a post matches, and a profile's posts per day in the scope.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { posts } from '@server/db/social-schema';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import type { PostDetailResponse, ProfileDetailResponse } from '@contract/social-detail';
import { plansFile } from '@test/support/billing.fixtures';
import { scanned, statementsOf } from '@test/support/pruning';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

const DAY = 86_400_000;
let server: TestServer;
let team: Team;
const ids: Record<string, number> = {};
let ana = 0;
let ben = 0;
/** Noon UTC, `days` days ago. */
const daysAgo = (days: number) => new Date(Math.floor(Date.now() / DAY) * DAY - days * DAY + 12 * 3_600_000);

beforeAll(async () => {
  // A trial that keeps 30 days of history.
  server = await createTestServer({ BILLING_PLANS_FILE: plansFile({ history_days: 30 }) });
  team = await createTeam(server);
  const made = (
    await insertProfiles(server.db, [
      {
        platform: 'x',
        externalId: 'ana-x',
        handle: 'ana',
        displayName: 'Ana',
        followers: 500,
        bio: 'Coffee.',
      },
      { platform: 'reddit', externalId: 'ben-r', handle: 'ben', displayName: 'Ben', followers: 10 },
    ])
  ).map((id) => ({ id }));
  [ana, ben] = [made[0]!.id, made[1]!.id];
  const specs = [
    {
      key: 'latte',
      author: ana,
      text: 'Oat milk latte in the morning',
      tags: ['coffee'],
      at: daysAgo(2),
      likes: 5,
    },
    { key: 'tea', author: ana, text: 'Green tea and a quiet morning', tags: [], at: daysAgo(2), likes: 1 },
    { key: 'brew', author: ana, text: 'Cold brew season', tags: ['coffee'], at: daysAgo(5), likes: 7 },
    { key: 'ben', author: ben, text: 'Latte art fails', tags: [], at: daysAgo(1), likes: 2 },
    { key: 'old', author: ana, text: 'An old latte', tags: [], at: daysAgo(60), likes: 3 },
  ];
  await insertPosts(
    server.db,
    specs.map((spec) => ({
      platform: spec.author === ana ? ('x' as const) : ('reddit' as const),
      externalId: spec.key,
      authorId: spec.author,
      text: spec.text,
      language: 'en',
      postedAt: spec.at,
      hashtags: spec.tags,
      likes: spec.likes,
    })),
  );
  const rows = await server.db.select({ id: posts.id, key: posts.externalId }).from(posts);
  for (const row of rows) ids[row.key] = row.id;
});
afterAll(() => server.close());

const postDetail = (person: Person | null, body: Record<string, unknown>, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: '/social/posts/detail',
    payload: { workspace_id: t.workspaceId, ...body },
  });
const profileDetail = (person: Person | null, body: Record<string, unknown>, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: '/social/profiles/detail',
    payload: { workspace_id: t.workspaceId, query: '', ...body },
  });

describe('who may read a post or a profile', () => {
  it.each([
    ['owner', 200],
    ['manager', 200],
    ['viewer', 200],
    ['outsider', 404],
    ['signed out', 401],
  ] as const)('as %s → %i', async (caller, status) => {
    const person = caller === 'signed out' ? null : team[caller];
    const post = await postDetail(person, { post_id: ids.latte });
    expect(post.statusCode, post.body).toBe(status);
    const profile = await profileDetail(person, { profile_id: ana });
    expect(profile.statusCode, profile.body).toBe(status);
  });

  it('refuses a member of another workspace, with the same answer as for one that does not exist', async () => {
    const other = await createTeam(server);
    const refused = await postDetail(other.viewer, { post_id: ids.latte });
    const missing = await postDetail(other.viewer, { post_id: ids.latte, workspace_id: 'no-such-workspace' });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual(missing.json());
    expect((await profileDetail(other.viewer, { profile_id: ana })).statusCode).toBe(404);
  });
});

describe('what is not found or malformed', () => {
  it('a post that does not exist, or older than the plan keeps, is 404 not_found', async () => {
    for (const postId of [ids.latte! + 1000, ids.old]) {
      const res = await postDetail(team.viewer, { post_id: postId });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('a profile that does not exist is 404 not_found', async () => {
    const res = await profileDetail(team.viewer, { profile_id: ben + 1000 });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'not_found' });
  });

  it.each([['abc'], [0], [-3], [1.5], ['12']])('an id of %j is 400', async (id) => {
    const post = await postDetail(team.viewer, { post_id: id });
    expect(post.statusCode, post.body).toBe(400);
    expect(post.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    expect((await profileDetail(team.viewer, { profile_id: id })).statusCode).toBe(400);
  });

  it('a query that does not parse is 400 invalid_query', async () => {
    const res = await postDetail(team.viewer, { post_id: ids.latte, query: 'latte AND (' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_query');
  });
});

describe('a post', () => {
  it('comes with its text, metrics and author', async () => {
    const res = await postDetail(team.viewer, { post_id: ids.latte });
    expect(res.statusCode).toBe(200);
    const body = res.json<PostDetailResponse>();
    expect(body.post).toMatchObject({
      id: ids.latte,
      text: 'Oat milk latte in the morning',
      likes: 5,
      engagement: 5,
      hashtags: ['coffee'],
      author: { id: ana, handle: 'ana', display_name: 'Ana' },
    });
    expect(body.matched).toBeNull();
    expect(body.time_zone).toEqual(expect.any(String));
  });

  it("says which of the query's terms it matches, as the search does", async () => {
    const res = await postDetail(team.viewer, {
      post_id: ids.latte,
      query: '(latte OR espresso) AND #coffee AND "the morning" AND NOT tea AND author:ana AND morn*',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<PostDetailResponse>().matched).toEqual({
      query: '(latte OR espresso) AND #coffee AND "the morning" AND NOT tea AND author:ana AND morn*',
      matches: true,
      terms: [
        { term: 'latte', negated: false, matched: true },
        { term: 'espresso', negated: false, matched: false },
        { term: '#coffee', negated: false, matched: true },
        { term: '"the morning"', negated: false, matched: true },
        { term: 'tea', negated: true, matched: false },
        { term: 'author:ana', negated: false, matched: true },
        { term: 'morn*', negated: false, matched: true },
      ],
    });
  });

  it('a post that a NOT excludes does not match the query', async () => {
    const res = await postDetail(team.viewer, { post_id: ids.tea, query: 'morning NOT tea' });
    expect(res.json<PostDetailResponse>().matched).toMatchObject({
      matches: false,
      terms: [
        { term: 'morning', negated: false, matched: true },
        { term: 'tea', negated: true, matched: true },
      ],
    });
  });

  it("takes a saved query of the workspace, and not another workspace's", async () => {
    const saved = await as(server, team.manager, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Lattes', query: 'latte' },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const id = saved.json<{ id: string }>().id;
    const res = await postDetail(team.viewer, { post_id: ids.ben, saved_query_id: id });
    expect(res.json<PostDetailResponse>().matched).toMatchObject({ query: 'latte', matches: true });
    const other = await createTeam(server);
    expect((await postDetail(other.viewer, { post_id: ids.ben, saved_query_id: id }, other)).statusCode).toBe(
      404,
    );
  });
});

describe('a profile', () => {
  it('has its posts and engagement per day in the scope, zero-filled', async () => {
    const from = daysAgo(7).toISOString();
    const to = new Date().toISOString();
    const res = await profileDetail(team.viewer, { profile_id: ana, filters: { from, to } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<ProfileDetailResponse>();
    expect(body.profile).toMatchObject({ id: ana, handle: 'ana', external_id: 'ana-x', bio: 'Coffee.' });
    expect(body.totals).toEqual({ posts: 3, engagement: 13 });
    expect(body.days.length).toBeGreaterThanOrEqual(7);
    expect(body.days.reduce((sum, day) => sum + day.posts, 0)).toBe(3);
    expect(body.days.filter((day) => day.posts > 0).map((day) => day.posts)).toEqual([1, 2]);
    expect(body.counted).toMatch(/@ana/);
  });

  it('counts only the posts of the query', async () => {
    const res = await profileDetail(team.viewer, { profile_id: ana, query: 'latte OR brew' });
    expect(res.json<ProfileDetailResponse>().totals).toEqual({ posts: 2, engagement: 12 });
  });

  it("keeps to the plan's history as the dashboards do", async () => {
    const res = await profileDetail(team.viewer, {
      profile_id: ana,
      filters: { from: daysAgo(90).toISOString(), to: daysAgo(50).toISOString() },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('history_limit');
  });
});

describe('the OpenAPI document', () => {
  it('describes both routes with their bodies and answers', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json<{
      paths: Record<string, { post?: { requestBody?: unknown; responses?: Record<string, unknown> } }>;
    }>();
    for (const path of ['/social/posts/detail', '/social/profiles/detail']) {
      const route = doc.paths[path]?.post;
      expect(route?.requestBody, path).toBeDefined();
      expect(Object.keys(route?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '400', '404', '429']),
      );
    }
  });
});

describe('partition pruning', () => {
  /** The months of posts each statement that `work` runs reads, by the plan PostgreSQL makes for it. */
  async function monthsRead(work: () => Promise<void>): Promise<string[][]> {
    const statements = await statementsOf(work);
    const months: string[][] = [];
    for (const { text, values } of statements) {
      const { rows } = await server.pool.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (FORMAT JSON) ${text}`,
        values,
      );
      months.push(
        [...scanned(rows[0]!['QUERY PLAN'])].filter((name) => /^posts_\d{4}_\d{2}$/.test(name)).sort(),
      );
    }
    return months;
  }
  const monthOf = (at: Date) => `posts_${at.toISOString().slice(0, 7).replace('-', '_')}`;

  it("a post is read from its month's partition alone", async () => {
    const [latte] = await server.db
      .select({ at: posts.postedAt })
      .from(posts)
      .where(eq(posts.id, ids.latte!));
    const months = await monthsRead(async () => {
      const res = await postDetail(team.viewer, { post_id: ids.latte, query: 'latte OR #coffee' });
      expect(res.statusCode).toBe(200);
    });
    expect(months).toEqual([[monthOf(latte!.at)]]);
  });

  it("a profile's days read no posts from PostgreSQL: the analytics store counts them", async () => {
    const months = await monthsRead(async () => {
      const res = await profileDetail(team.viewer, {
        profile_id: ana,
        filters: { from: daysAgo(3).toISOString(), to: new Date().toISOString() },
      });
      expect(res.statusCode).toBe(200);
    });
    expect(months).toEqual([]);
  });
});
