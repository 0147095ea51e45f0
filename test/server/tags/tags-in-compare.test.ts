// Tags in Compare (issue 55, item 3): POST /social/insights/compare takes the dashboards' refinements, the `tag`
// refinement among them (with exclude), and applies them to every compared query and to the overlap: each query's
// mentions are its matching posts that carry the tag (or not), the overlap the tagged posts matching two or more; the
// counted sentence names the tag "Category › Tag"; another workspace's tag is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { CompareResponse } from '@contract/insights-compare';
import type { TagCategoryResponse, TagResponse } from '@contract/tags';
import { applyTagRules } from '@server/tags/apply';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { insertSavedQuery } from '@test/support/insights.fixtures';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus, matching } from '@test/support/query-corpus.fixtures';

let server: TestServer;
let team: Team;
let other: Team;
const FILTERS = { from: '2025-12-31T00:00:00Z', to: '2026-01-02T00:00:00Z' };
const QUERIES = ['coffee', 'tea'];
/** The posts tagged by hand: some matching coffee, some tea, some both, one neither. */
const TAGGED = ['love', 'better', 'flat', 'fire', 'toot'];
let saved: string[];
let topic: TagCategoryResponse;
let liked: TagResponse;

beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
  [team, other] = [await createTeam(server), await createTeam(server)];
  saved = [];
  for (const query of QUERIES) saved.push(await insertSavedQuery(server, team.workspaceId, query));
  const base = `/api/workspaces/${team.workspaceId}`;
  const post = async <T>(url: string, payload: object, status = 201) => {
    const res = await as(server, team.manager, { method: 'POST', url: `${base}${url}`, payload });
    expect(res.statusCode, res.body).toBe(status);
    return res.json<T>();
  };
  topic = await post<TagCategoryResponse>('/tag-categories', { name: 'Topic' });
  liked = await post<TagResponse>(`/tag-categories/${topic.id}/tags`, { name: 'Liked' });
  const { rows } = await server.db.execute<{ external_id: string; id: string }>(
    sql`SELECT external_id, id::text AS id FROM post_keys`,
  );
  const ids = new Map(rows.map((row) => [row.external_id, Number(row.id)]));
  await post(
    `/tags/${liked.id}/posts`,
    { post_ids: TAGGED.map((name) => ids.get(name)!), tagged: true },
    200,
  );
  await applyTagRules(server.db);
  await server.storeCaughtUp();
});
afterAll(() => server.close());

const compare = (refine: object[] | undefined, t: Team = team) =>
  as(server, t.viewer, {
    method: 'POST',
    url: '/social/insights/compare',
    payload: {
      workspace_id: t.workspaceId,
      saved_query_ids: saved,
      filters: FILTERS,
      ...(refine && { refine }),
    },
  });

describe('tags in Compare', () => {
  it("refines every query and the overlap to a tag's posts, and names the tag", async () => {
    const res = await compare([{ field: 'tag', values: [liked.id] }]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<CompareResponse>();
    const [coffee, tea] = QUERIES.map((query) => matching(query).filter((name) => TAGGED.includes(name)));
    expect(coffee!.length).toBeGreaterThan(0);
    expect(tea!.length).toBeGreaterThan(0);
    expect(body.queries.map((q) => q.mentions.value)).toEqual([coffee!.length, tea!.length]);
    const both = coffee!.filter((name) => tea!.includes(name));
    expect(both.length).toBeGreaterThan(0);
    expect(body.overlap).toEqual({ posts: both.length, pairs: [{ a: 0, b: 1, posts: both.length }] });
    expect(body.counted).toContain('Every query is refined to tagged "Topic › Liked", the overlap too.');
  });

  it('excludes a tag, and without refinements counts every matching post', async () => {
    const excluded = (
      await compare([{ field: 'tag', values: [liked.id], exclude: true }])
    ).json<CompareResponse>();
    const all = (await compare(undefined)).json<CompareResponse>();
    const untagged = QUERIES.map((query) => matching(query).filter((name) => !TAGGED.includes(name)).length);
    expect(excluded.queries.map((q) => q.mentions.value)).toEqual(untagged);
    expect(all.queries.map((q) => q.mentions.value)).toEqual(QUERIES.map((query) => matching(query).length));
    const both = matching('coffee AND tea');
    expect(all.overlap.posts).toBe(both.length);
    expect(excluded.overlap.posts).toBe(both.filter((name) => !TAGGED.includes(name)).length);
    expect(all.counted).not.toContain('refined to');
  });

  it("refuses another workspace's tag", async () => {
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
    const res = await compare([{ field: 'tag', values: [tag.json<{ id: string }>().id] }]);
    expect(res.statusCode).toBe(404);
    expect(res.json<{ error: string }>().error).toBe('tag_not_found');
  });
});
