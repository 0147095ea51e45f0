// Every post of a list tagged or untagged by hand (POST /social/insights/tag-posts; server/social/insights/tag-list.ts): the
// list's scope read from the analytics store, the tag written on exactly its posts (its progress as NDJSON lines), a
// removal by hand over a rule kept; batches written a transaction each; owners and managers only; the workspace's
// own tags only; in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import type { PostsResponse } from '@contract/insights-responses';
import type { TagCategoryResponse, TagListProgress, TagResponse } from '@contract/tags';
import { applyTagRules } from '@server/tags/apply';
import { listPostIds, tagListPosts } from '@server/social/insights/tag-list';
import { resolveInsightScope } from '@server/social/insights/request';
import { ApiError } from '@server/errors';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { ALL, insertCorpus, matching } from '@test/support/query-corpus.fixtures';

let server: TestServer;
let team: Team;
let other: Team;
const FILTERS = { from: '2025-12-31T00:00:00Z', to: '2026-01-02T00:00:00Z' };

beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
  [team, other] = [await createTeam(server), await createTeam(server)];
});
afterAll(() => server.close());

const base = (t: Team) => `/api/workspaces/${t.workspaceId}`;

async function created<T>(t: Team, url: string, payload: object): Promise<T> {
  const res = await as(server, t.manager, { method: 'POST', url: `${base(t)}${url}`, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<T>();
}

async function settled() {
  for (let i = 0; i < 20; i += 1) await applyTagRules(server.db);
  await server.storeCaughtUp();
}

async function names(): Promise<Map<number, string>> {
  const { rows } = await server.db.execute<{ external_id: string; id: string }>(
    sql`SELECT external_id, id::text AS id FROM post_keys`,
  );
  return new Map(rows.map((row) => [Number(row.id), row.external_id]));
}

const tagList = (person: Person, body: object, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/tag-posts',
    payload: { workspace_id: t.workspaceId, filters: FILTERS, ...body },
  });

const lines = (body: string) =>
  body
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TagListProgress);

/** The names of the posts the filtered-posts list gives for `refine`, sorted. */
async function listed(refine: object[]): Promise<string[]> {
  const res = await as(server, team.viewer, {
    method: 'POST',
    url: '/social/insights/filtered-posts',
    payload: { workspace_id: team.workspaceId, query: '', filters: FILTERS, refine, limit: 100 },
  });
  expect(res.statusCode, res.body).toBe(200);
  const byId = await names();
  return res
    .json<PostsResponse>()
    .posts.map((post) => byId.get(Number(post.id))!)
    .sort();
}

describe('tagging every post of a list', () => {
  let topic: TagCategoryResponse;
  let drinks: TagResponse;
  let tea: TagResponse;

  beforeAll(async () => {
    topic = await created(team, '/tag-categories', { name: 'Topic' });
    drinks = await created(team, `/tag-categories/${topic.id}/tags`, { name: 'Drinks' });
    tea = await created(team, `/tag-categories/${topic.id}/tags`, { name: 'Tea' });
    await created(team, `/tags/${tea.id}/rules`, { query: 'tea' });
    await settled();
  });

  it("sets the tag on every post of the list's scope, saying its progress", async () => {
    const drinking = matching('tea OR coffee');
    expect(drinking.length).toBeGreaterThan(1);
    const res = await as(server, team.manager, {
      method: 'POST',
      url: '/social/insights/tag-posts',
      headers: { 'accept-encoding': 'br, gzip' },
      payload: {
        workspace_id: team.workspaceId,
        filters: FILTERS,
        query: 'tea OR coffee',
        tag_id: drinks.id,
        tagged: true,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    // Not compressed: each line is sent as its batch is written.
    expect(res.headers['content-encoding']).toBeUndefined();
    const progress = lines(res.body);
    expect(progress[0]).toEqual({ done: 0, total: drinking.length, changed: 0 });
    expect(progress.at(-1)).toEqual({
      done: drinking.length,
      total: drinking.length,
      changed: drinking.length,
    });
    await settled();
    expect(await listed([{ field: 'tag', values: [drinks.id] }])).toEqual(drinking);
    // Asked again: the same posts, none changed.
    const again = lines(
      (await tagList(team.owner, { query: 'tea OR coffee', tag_id: drinks.id, tagged: true })).body,
    );
    expect(again.at(-1)).toEqual({ done: drinking.length, total: drinking.length, changed: 0 });
  });

  it('removes the tag from every post of a list refined by it, and the removal sticks over a rule', async () => {
    const teaPosts = matching('tea');
    expect(await listed([{ field: 'tag', values: [tea.id] }])).toEqual(teaPosts);
    const refine = [{ field: 'tag', values: [tea.id] }];
    const res = await tagList(team.manager, { query: '', refine, tag_id: tea.id, tagged: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(lines(res.body).at(-1)).toEqual({
      done: teaPosts.length,
      total: teaPosts.length,
      changed: teaPosts.length,
    });
    await settled();
    expect(await listed(refine)).toEqual([]);
    const breakdown = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/categories',
      payload: { workspace_id: team.workspaceId, query: '', filters: FILTERS, category_id: topic.id },
    });
    const body = breakdown.json<CategoryBreakdownResponse>();
    expect(body.tags.find((t) => t.id === tea.id)?.posts).toBe(0);
    expect(body.posts).toBe(ALL.length);
  });

  it('writes a batch a transaction, and leaves out a post deleted since the store named it', async () => {
    const byName = new Map([...(await names())].map(([id, name]) => [name, id]));
    const ids = ALL.map((name) => byName.get(name)!).sort((a, b) => a - b);
    const gone = Math.max(...ids) + 1000;
    const seen: TagListProgress[] = [];
    const version = async () =>
      Number(
        (await server.db.execute<{ v: string }>(sql`SELECT version::text AS v FROM corpus_state`)).rows[0]!.v,
      );
    const before = await version();
    for await (const line of tagListPosts(
      server.db,
      {
        workspaceId: team.workspaceId,
        tagId: drinks.id,
        tagged: true,
        userId: team.manager.id,
        ids: [...ids, gone],
      },
      3,
    )) {
      seen.push(line);
    }
    const total = ids.length + 1;
    const batches = Math.ceil(total / 3);
    expect(seen.map((line) => line.done)).toEqual([
      0,
      ...Array.from({ length: batches }, (_, i) => Math.min((i + 1) * 3, total)),
    ]);
    expect(seen.at(-1)).toEqual({
      done: total,
      total,
      changed: ALL.length - matching('tea OR coffee').length,
    });
    // Each batch that changed a post was its own write: the corpus version raised once for each.
    const tagged = new Set(matching('tea OR coffee').map((name) => byName.get(name)!));
    const chunks = Array.from({ length: batches }, (_, i) => [...ids, gone].slice(i * 3, i * 3 + 3));
    const changing = chunks.filter((chunk) => chunk.some((id) => id !== gone && !tagged.has(id))).length;
    expect(changing).toBeGreaterThan(1);
    expect((await version()) - before).toBe(changing);
    await settled();
    expect(await listed([{ field: 'tag', values: [drinks.id] }])).toEqual(ALL);
  });

  it("reads the list's ids at one version, and refuses a list longer than the most tagged at once", async () => {
    const context = await resolveInsightScope(
      server.db,
      { timeZone: 'UTC' },
      {
        workspace_id: team.workspaceId,
        query: 'tea OR coffee',
        filters: FILTERS,
      },
    );
    const byName = new Map([...(await names())].map(([id, name]) => [name, id]));
    const want = matching('tea OR coffee')
      .map((name) => byName.get(name)!)
      .sort((a, b) => a - b);
    expect(await listPostIds(server.db, context, server.analytics)).toEqual(want);
    expect(await listPostIds(server.db, context, server.analytics, want.length)).toEqual(want);
    const refused = await listPostIds(server.db, context, server.analytics, want.length - 1).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ statusCode: 409, code: 'too_many_posts' });
    expect((refused as Error).message).toBe(
      `This list has ${want.length} posts; at most ${want.length - 1} are tagged at once. Narrow the list, or tag ` +
        'its posts with a rule.',
    );
  });

  it('is for owners and managers of the workspace, with its own tags', async () => {
    const viewer = await tagList(team.viewer, { query: '', tag_id: drinks.id, tagged: true });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json<{ message: string }>().message).toBe(
      'Only owners and managers can change categories and tags.',
    );
    const outsider = await tagList(other.owner, { query: '', tag_id: drinks.id, tagged: true });
    expect(outsider.statusCode).toBe(404);
    const theirs = await created<TagCategoryResponse>(other, '/tag-categories', { name: 'Theirs' });
    const theirTag = await created<TagResponse>(other, `/tag-categories/${theirs.id}/tags`, { name: 'T' });
    const foreign = await tagList(team.manager, { query: '', tag_id: theirTag.id, tagged: true });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json<{ error: string }>().error).toBe('tag_not_found');
    const unparsed = await tagList(team.manager, { query: 'tea AND', tag_id: drinks.id, tagged: true });
    expect(unparsed.statusCode).toBe(400);
  });

  it('is in the OpenAPI document', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    const route = res.json<{ paths: Record<string, { post: { responses: Record<string, unknown> } }> }>()
      .paths['/social/insights/tag-posts'];
    expect(Object.keys(route!.post.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '409']));
  });
});
