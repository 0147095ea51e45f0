// Paging cursors travel through clients, so they are sealed: a cursor whose values were edited (and re-encoded
// without the server's key) is a 400 before any of its values reaches SQL, and a cursor works only in the workspace
// and the list it came from (issue 17, item 1: edited keys and ranges used to give 500s, or 200s past the range cap).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiscoverResponse } from '@contract/discover';
import type { PostsResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';

let server: TestServer;
let team: Team;
let other: Team;
beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
  other = await createTeam(server);
  // The other team's viewer reads their own workspace only; the same person is also in the first team.
  await insertCorpus(server);
});
afterAll(() => server.close());

const RANGE = { from: '2026-10-01T00:00:00Z', to: '2026-11-10T00:00:00Z' };
const call = (person: Person, url: string, body: Record<string, unknown>, t: Team = team) =>
  as(server, person, {
    method: 'POST',
    url: `/social/${url}`,
    payload: { workspace_id: t.workspaceId, filters: RANGE, limit: 2, ...body },
  });

/** The readable part of a sealed cursor (base64url JSON before the dot), and the same re-encoded with edits. */
const inner = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString());
const forge = (cursor: string, edit: Record<string, unknown>) => {
  const [, seal] = cursor.split('.');
  const edited = Buffer.from(JSON.stringify({ ...inner(cursor), ...edit })).toString('base64url');
  return seal === undefined ? edited : `${edited}.${seal}`;
};

async function firstCursor(url: string, body: Record<string, unknown>, t: Team = team) {
  const res = await call(t.viewer, url, body, t);
  expect(res.statusCode, res.body).toBe(200);
  const cursor = res.json<PostsResponse | DiscoverResponse>().next_cursor;
  expect(cursor).toEqual(expect.any(String));
  return cursor!;
}

describe('sealed cursors', () => {
  it.each([
    ['posts', 'engagement', { key: '2147483648' }],
    ['posts', 'overperformance', { key: '1e999' }],
    ['posts', 'recency', { key: '2024-02-30T00:00:00.000000Z' }],
    ['posts', 'recency', { key: '2024-13-45T00:00:00.000000Z' }],
    ['posts', 'engagement', { from: '-271821-04-20T00:00:00.000Z' }],
    ['posts', 'engagement', { from: '0001-01-01T00:00:00.000Z', to: '+275760-09-13T00:00:00.000Z' }],
    ['posts', 'engagement', { from: '2026-11-09T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z' }],
    ['filtered-posts', 'engagement', { key: '2147483648' }],
  ])('insights %s (%s) refuses a cursor edited to %j', async (url, sort, edit) => {
    const cursor = await firstCursor(`insights/${url}`, { query: '', sort });
    const res = await call(team.viewer, `insights/${url}`, { query: '', sort, cursor: forge(cursor, edit) });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_cursor' });
  });

  it.each([
    ['recency', { k: '2024-02-30T00:00:00.000000Z' }],
    ['engagement', { k: 2147483648 }],
    ['recency', { from: '0001-01-01T00:00:00.000Z' }],
  ])('discover (%s) refuses a cursor edited to %j', async (sort, edit) => {
    const cursor = await firstCursor('discover', { query: 'coffee OR tea', sort });
    const res = await call(team.viewer, 'discover', {
      query: 'coffee OR tea',
      sort,
      cursor: forge(cursor, edit),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_cursor' });
  });

  it('refuses a cursor of one workspace in another, even for the same list', async () => {
    const person = team.viewer;
    const res = await as(server, person, {
      method: 'POST',
      url: '/api/workspaces',
      payload: { name: 'Second', language: 'en' },
    });
    const second = res.json<{ id: string }>().id;
    const cursor = await firstCursor('insights/posts', { query: '', sort: 'engagement' });
    const replay = await as(server, person, {
      method: 'POST',
      url: '/social/insights/posts',
      payload: { workspace_id: second, query: '', sort: 'engagement', filters: RANGE, limit: 2, cursor },
    });
    expect(replay.statusCode, replay.body).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_cursor' });
    expect(other.workspaceId).not.toBe(second);
  });

  it('still pages with the cursors it hands out', async () => {
    for (const [url, body] of [
      ['insights/posts', { query: '', sort: 'recency' }],
      ['insights/filtered-profiles', { query: '' }],
      ['discover', { query: 'coffee OR tea' }],
    ] as const) {
      const cursor = await firstCursor(url, body);
      const next = await call(team.viewer, url, { ...body, cursor });
      expect(next.statusCode, `${url} ${next.body}`).toBe(200);
    }
  });
});
