// Comparing tags (issue 55, item 3): POST /social/insights/compare with tag_ids puts 2 to 5 tags side by side within
// one saved query (saved_query_id) or every post (without it). Each tag's column equals that scope's overview with the
// tag as one more refinement (the body's refinements first), the overlap is the scope's posts carrying two or more of
// the tags, the counted sentence names the tags; exactly one mode per body, each refusal a clear 400; another
// workspace's tag or saved query a 404; a viewer may read it; a link shares it; the OpenAPI document describes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { CompareResponse } from '@contract/insights-compare';
import type { OverviewResponse } from '@contract/insights-responses';
import type { ShareLink } from '@contract/share-links';
import type { TagCategoryResponse, TagResponse } from '@contract/tags';
import { applyTagRules } from '@server/tags/apply';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { insertSavedQuery } from '@test/support/insights.fixtures';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { ALL, insertCorpus, matching } from '@test/support/query-corpus.fixtures';

let server: TestServer;
let team: Team;
let other: Team;
const FILTERS = { from: '2025-12-31T00:00:00Z', to: '2026-01-02T00:00:00Z' };
const QUERY = 'coffee OR tea';
/** Each tag's posts, set by hand: Liked and Warm share some, Unused has none. */
const TAGGED = {
  liked: ['love', 'better', 'flat', 'fire', 'toot'],
  warm: ['love', 'cafe', 'shop', 'fire', 'seoul'],
  unused: [] as string[],
};
let saved: string;
let theirSaved: string;
const tagIds: Record<keyof typeof TAGGED, string> = { liked: '', warm: '', unused: '' };

beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
  [team, other] = [await createTeam(server), await createTeam(server)];
  saved = await insertSavedQuery(server, team.workspaceId, QUERY);
  theirSaved = await insertSavedQuery(server, other.workspaceId, QUERY);
  const base = `/api/workspaces/${team.workspaceId}`;
  const post = async <T>(url: string, payload: object, status = 201) => {
    const res = await as(server, team.manager, { method: 'POST', url: `${base}${url}`, payload });
    expect(res.statusCode, res.body).toBe(status);
    return res.json<T>();
  };
  const topic = await post<TagCategoryResponse>('/tag-categories', { name: 'Topic' });
  const mood = await post<TagCategoryResponse>('/tag-categories', { name: 'Mood' });
  const { rows } = await server.db.execute<{ external_id: string; id: string }>(
    sql`SELECT external_id, id::text AS id FROM post_keys`,
  );
  const ids = new Map(rows.map((row) => [row.external_id, Number(row.id)]));
  for (const [key, category, name] of [
    ['liked', topic, 'Liked'],
    ['warm', mood, 'Warm'],
    ['unused', topic, 'Unused'],
  ] as const) {
    const tag = await post<TagResponse>(`/tag-categories/${category.id}/tags`, { name });
    tagIds[key] = tag.id;
    if (TAGGED[key].length) {
      await post(
        `/tags/${tag.id}/posts`,
        { post_ids: TAGGED[key].map((external) => ids.get(external)!), tagged: true },
        200,
      );
    }
  }
  await applyTagRules(server.db);
  await server.storeCaughtUp();
});
afterAll(() => server.close());

const call = (url: string, payload: Record<string, unknown>, person: Person | null = team.viewer) =>
  as(server, person, { method: 'POST', url: `/social/insights/${url}`, payload });

/** Tags compared within the saved query (or, given null, every post). */
async function compareTags(tags: string[], refine?: object[], within: string | null = saved) {
  const res = await call('compare', {
    workspace_id: team.workspaceId,
    ...(within && { saved_query_id: within }),
    tag_ids: tags,
    filters: FILTERS,
    ...(refine && { refine }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<CompareResponse>();
}

async function overview(refine: object[], within: string | null = saved) {
  const res = await call('overview', {
    workspace_id: team.workspaceId,
    ...(within ? { saved_query_id: within } : { query: '' }),
    filters: FILTERS,
    refine,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<OverviewResponse>();
}

/** Every column's figures against the saved query's overview refined to the body's refinements and its tag. */
async function expectOverviews(
  body: CompareResponse,
  tags: string[],
  refine: object[] = [],
  within: string | null = saved,
) {
  const overviews = await Promise.all(
    tags.map((tag) => overview([...refine, { field: 'tag', values: [tag] }], within)),
  );
  const first = overviews[0]!;
  expect(body.mode).toBe('tags');
  expect([body.time_zone, body.range, body.previous_range, body.bucket]).toEqual([
    first.time_zone,
    first.range,
    first.previous_range,
    first.bucket,
  ]);
  const total = overviews.reduce((sum, o) => sum + o.totals.mentions.value, 0);
  overviews.forEach((o, i) => {
    const column = body.queries[i]!;
    expect(column.saved_query_id).toBe(within);
    expect(column.tag_id).toBe(tags[i]);
    expect(column.query).toBe(o.query);
    expect(column.mentions).toEqual(o.totals.mentions);
    expect(column.sentiment).toEqual(o.sentiment);
    expect(column.platforms).toEqual(o.platforms.map(({ platform, mentions }) => ({ platform, mentions })));
    expect(column.top_authors).toEqual(o.top_people.slice(0, 5));
    expect(body.over_time.map((b) => b.mentions[i])).toEqual(o.over_time.map((b) => b.mentions));
    expect(column.share).toBeCloseTo(total ? o.totals.mentions.value / total : 0, 12);
  });
  return overviews;
}

/** The saved query's posts carrying each tag (of those `keep` keeps), and the overlap they make. */
function expectedOverlap(
  keys: Array<keyof typeof TAGGED>,
  keep: (name: string) => boolean = () => true,
  scope: string[] = matching(QUERY),
) {
  const sets = keys.map((key) => new Set(scope.filter((name) => TAGGED[key].includes(name) && keep(name))));
  const pairs = [];
  for (let a = 0; a < sets.length; a += 1)
    for (let b = a + 1; b < sets.length; b += 1)
      pairs.push({ a, b, posts: [...sets[a]!].filter((name) => sets[b]!.has(name)).length });
  const posts = scope.filter((name) => sets.filter((set) => set.has(name)).length >= 2).length;
  return { sets, overlap: { posts, pairs } };
}

describe('tags side by side', () => {
  it("gives each tag the saved query's overview refined to it, the overlap and the tags' names", async () => {
    const keys = ['liked', 'warm', 'unused'] as const;
    const tags = keys.map((key) => tagIds[key]);
    const body = await compareTags(tags);
    await expectOverviews(body, tags);
    const { sets, overlap } = expectedOverlap([...keys]);
    expect(body.queries.map((q) => q.mentions.value)).toEqual(sets.map((set) => set.size));
    expect(sets[0]!.size).toBeGreaterThan(0);
    expect(overlap.posts).toBeGreaterThan(0);
    expect(body.overlap).toEqual(overlap);
    expect(body.queries.map((q) => q.name)).toEqual(['Topic › Liked', 'Mood › Warm', 'Topic › Unused']);
    expect(body.counted).toContain(
      `3 tags compared ("Topic › Liked", "Mood › Warm", "Topic › Unused") within the saved query "Saved ${QUERY}"`,
    );
    expect(body.counted).toContain('Overlap = the posts of the range carrying two or more of the tags');
  });

  it("applies the body's refinements to every tag and the overlap, in the order asked", async () => {
    const refine = [{ field: 'language', values: ['en'] }];
    const tags = [tagIds.warm, tagIds.liked];
    const body = await compareTags(tags, refine);
    await expectOverviews(body, tags, refine);
    const english = new Set(['love', 'flat', 'shop', 'fire', 'better', 'inject']);
    const { overlap } = expectedOverlap(['warm', 'liked'], (name) => english.has(name));
    expect(body.overlap).toEqual(overlap);
    expect(body.counted).toContain("Every tag's posts are refined to language en, the overlap too.");
  });

  it('compares tags over every post without a saved query', async () => {
    const keys = ['warm', 'liked'] as const;
    const tags = keys.map((key) => tagIds[key]);
    const body = await compareTags(tags, undefined, null);
    await expectOverviews(body, tags, [], null);
    const { sets, overlap } = expectedOverlap([...keys], () => true, ALL);
    expect(body.queries.map((q) => q.mentions.value)).toEqual(sets.map((set) => set.size));
    // Every post: more than the saved query's (seoul and cafe match neither coffee nor tea).
    expect(sets[0]!.size).toBeGreaterThan(expectedOverlap(['warm']).sets[0]!.size);
    expect(body.overlap).toEqual(overlap);
    expect(body.queries.map((q) => [q.saved_query_id, q.query])).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(body.counted).toContain(
      '2 tags compared ("Mood › Warm", "Topic › Liked") over every post of the workspace',
    );
  });

  it('keeps answering saved queries side by side, saying so', async () => {
    const second = await insertSavedQuery(server, team.workspaceId, 'coffee');
    const res = await call('compare', {
      workspace_id: team.workspaceId,
      saved_query_ids: [saved, second],
      filters: FILTERS,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<CompareResponse>();
    expect(body.mode).toBe('saved_queries');
    expect(body.queries.map((q) => q.tag_id)).toEqual([undefined, undefined]);
  });
});

describe('what is refused', () => {
  const base = () => ({ workspace_id: team.workspaceId, filters: FILTERS });
  it.each([
    ['both modes', { saved_query_ids: ['A', 'B'], tag_ids: ['L', 'W'] }, 'body', 'not both'],
    ['neither mode', {}, 'body', 'Give saved_query_ids'],
    [
      'a scope with saved queries',
      { saved_query_ids: ['A', 'B'], saved_query_id: 'A' },
      'saved_query_id',
      'leave it out',
    ],
    ['one tag', { saved_query_id: 'A', tag_ids: ['L'] }, 'tag_ids', 'Compare at least 2 tags'],
    [
      'six tags',
      { saved_query_id: 'A', tag_ids: ['L', 'W', 'U', '1', '2', '3'] },
      'tag_ids',
      'Compare at most 5 tags',
    ],
    ['a tag twice', { saved_query_id: 'A', tag_ids: ['L', 'L'] }, 'tag_ids', 'A tag is compared once'],
    [
      'tags with no room left for their refinement',
      {
        tag_ids: ['L', 'W'],
        refine: Array.from({ length: 20 }, () => ({ field: 'platform', values: ['x'] })),
      },
      'refine',
      'Tags are compared with at most 19 refinements',
    ],
  ])('refuses %s with a 400 saying why', async (_name, fields, path, message) => {
    // Placeholders replaced by real ids: only the shape is wrong.
    const real: Record<string, string> = {
      A: saved,
      B: theirSaved,
      L: tagIds.liked,
      W: tagIds.warm,
      U: tagIds.unused,
      '1': crypto.randomUUID(),
      '2': crypto.randomUUID(),
      '3': crypto.randomUUID(),
    };
    const swap = (value: unknown): unknown =>
      Array.isArray(value) ? value.map(swap) : typeof value === 'string' ? (real[value] ?? value) : value;
    const payload = {
      ...base(),
      ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, swap(v)])),
    };
    const res = await call('compare', payload);
    expect(res.statusCode, res.body).toBe(400);
    const error = res.json<{ error: string; fields: Array<{ path: string; message: string }> }>();
    expect(error.error).toBe('invalid_request');
    expect(error.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ path, message: expect.stringContaining(message) })]),
    );
  });

  it("refuses another workspace's tag, or saved query, with a 404", async () => {
    const theirs = await as(server, other.manager, {
      method: 'POST',
      url: `/api/workspaces/${other.workspaceId}/tag-categories`,
      payload: { name: 'Theirs' },
    });
    const tag = await as(server, other.manager, {
      method: 'POST',
      url: `/api/workspaces/${other.workspaceId}/tag-categories/${theirs.json<{ id: string }>().id}/tags`,
      payload: { name: 'T' },
    });
    const foreignTag = await call('compare', {
      ...base(),
      saved_query_id: saved,
      tag_ids: [tagIds.liked, tag.json<{ id: string }>().id],
    });
    expect(foreignTag.statusCode).toBe(404);
    expect(foreignTag.json<{ error: string }>().error).toBe('tag_not_found');
    const foreignQuery = await call('compare', {
      ...base(),
      saved_query_id: theirSaved,
      tag_ids: [tagIds.liked, tagIds.warm],
    });
    expect(foreignQuery.statusCode).toBe(404);
    expect(foreignQuery.json<{ error: string }>().error).toBe('not_found');
  });

  it('lets no one outside the workspace read it', async () => {
    const payload = { ...base(), saved_query_id: saved, tag_ids: [tagIds.liked, tagIds.warm] };
    expect((await call('compare', payload, other.viewer)).statusCode).toBe(404);
    expect((await call('compare', payload, null)).statusCode).toBe(401);
  });
});

describe('the OpenAPI document', () => {
  it("describes Compare's two modes and the tags' fields", async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const operation = res.json().paths['/social/insights/compare'].post;
    const body = operation.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['saved_query_ids', 'saved_query_id', 'tag_ids', 'filters', 'refine']),
    );
    expect(operation.description).toContain('Two modes, exactly one per body');
    const answer = operation.responses['200'].content['application/json'].schema;
    expect(Object.keys(answer.properties)).toContain('mode');
    expect(Object.keys(answer.properties.queries.items.properties)).toContain('tag_id');
  });
});

describe('sharing tags side by side', () => {
  it("answers a link as a member's call, titled with its tags and saved query; a view of neither mode is refused", async () => {
    const view = { saved_query_id: saved, tag_ids: [tagIds.liked, tagIds.warm], filters: FILTERS };
    const url = `/api/workspaces/${team.workspaceId}/share-links`;
    const made = await as(server, team.manager, {
      method: 'POST',
      url,
      payload: { dashboard: 'compare', view },
    });
    expect(made.statusCode, made.body).toBe(201);
    const { link, token } = made.json<{ link: ShareLink; token: string }>();
    const title = `Topic › Liked vs Mood › Warm (Saved ${QUERY})`;
    expect(link).toMatchObject({ dashboard: 'compare', title, range: FILTERS });
    const listed = (await as(server, team.manager, { method: 'GET', url })).json<{ links: ShareLink[] }>();
    expect(listed.links.find((l) => l.id === link.id)!.title).toBe(title);
    const answer = await server.app.inject({
      method: 'POST',
      url: '/social/shared/answer',
      payload: { token },
      remoteAddress: '203.0.113.55',
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const member = await call('compare', { workspace_id: team.workspaceId, ...view });
    expect(answer.json()).toEqual(member.json());
    expect(answer.json<CompareResponse>().mode).toBe('tags');

    const everyPost = await as(server, team.manager, {
      method: 'POST',
      url,
      payload: { dashboard: 'compare', view: { tag_ids: view.tag_ids, filters: FILTERS } },
    });
    expect(everyPost.statusCode, everyPost.body).toBe(201);
    const everyLink = everyPost.json<{ link: ShareLink }>().link;
    expect(everyLink.title).toBe('Topic › Liked vs Mood › Warm (All posts)');
    const relisted = (await as(server, team.manager, { method: 'GET', url })).json<{ links: ShareLink[] }>();
    expect(relisted.links.find((l) => l.id === everyLink.id)!.title).toBe(everyLink.title);

    const neither = await as(server, team.manager, {
      method: 'POST',
      url,
      payload: { dashboard: 'compare', view: { saved_query_id: saved, filters: FILTERS } },
    });
    expect(neither.statusCode).toBe(400);
  });
});
