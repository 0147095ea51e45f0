// A workspace's lists: who may read and change them, what an item must be, a list a saved query reads cannot be
// deleted; and a query that reads a list (the editor's validate and count, a saved query, a dashboard) reads its
// current items, so editing the list changes the answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryListResponse, QueryListsResponse } from '@contract/lists';
import type { SavedQuery } from '@contract/saved-queries';
import type { OverviewResponse } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/query-corpus.fixtures';
import type pg from 'pg';
import { trackedQueriesFor } from '@server/tracking/coverage';
import { parseWithLists, printQuery } from '@server/query/index';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
});
afterAll(() => server.close());

const url = (team: Team, name?: string) =>
  `/api/workspaces/${team.workspaceId}/lists${name ? `/${name}` : ''}`;
const createList = (team: Team, payload: object, person: Person = team.owner) =>
  as(server, person, { method: 'POST', url: url(team), payload });
const putItems = (team: Team, name: string, items: string[], person: Person = team.manager) =>
  as(server, person, { method: 'PUT', url: url(team, name), payload: { items } });
const validate = async (team: Team, query: string) => {
  const res = await as(server, team.viewer, {
    method: 'POST',
    url: '/social/query/validate',
    payload: { workspace_id: team.workspaceId, query },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ valid: boolean; normalized?: string; matches?: number; errors?: unknown[] }>();
};

describe('roles', () => {
  const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
  // prettier-ignore
  const expected: Record<string, number[]> = {
    //              owner manager viewer outsider signed-out
    'GET lists':    [200,  200,    200,   404,     401],
    'POST lists':   [201,  201,    403,   404,     401],
    'PUT list':     [200,  200,    403,   404,     401],
    'DELETE list':  [204,  204,    403,   404,     401],
  };
  describe.each(Object.entries(expected))('%s', (endpoint, statuses) => {
    it.each(callers.map((caller, i) => [caller, statuses[i]!] as const))(
      'as %s → %i',
      async (caller, status) => {
        const team = await createTeam(server);
        expect(
          (await createList(team, { name: 'rivals', kind: 'authors', items: ['alice'] })).statusCode,
        ).toBe(201);
        const person = caller === 'signed out' ? null : team[caller];
        const request =
          endpoint === 'GET lists'
            ? { method: 'GET' as const, url: url(team) }
            : endpoint === 'POST lists'
              ? {
                  method: 'POST' as const,
                  url: url(team),
                  payload: { name: 'press', kind: 'sites', items: ['bbc.co.uk'] },
                }
              : endpoint === 'PUT list'
                ? { method: 'PUT' as const, url: url(team, 'rivals'), payload: { items: ['bob.kim'] } }
                : { method: 'DELETE' as const, url: url(team, 'rivals') };
        const res = await as(server, person, request);
        expect(res.statusCode, res.body).toBe(status);
        if (status === 403) expect(res.json().error).toBe('forbidden');
      },
    );
  });
});

describe('lists', () => {
  it('creates, lists by name, replaces items and deletes', async () => {
    const team = await createTeam(server);
    const created = await createList(team, {
      name: 'press',
      kind: 'sites',
      items: ['bbc.co.uk', ' nytimes.com ', 'bbc.co.uk'],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json<QueryListResponse>()).toMatchObject({
      name: 'press',
      kind: 'sites',
      items: ['bbc.co.uk', 'nytimes.com'],
      used_by: [],
    });
    expect((await createList(team, { name: 'alpha', kind: 'words', items: ['coffee'] })).statusCode).toBe(
      201,
    );
    const again = await createList(team, { name: 'press', kind: 'words', items: ['x'] });
    expect([again.statusCode, again.json().error]).toEqual([409, 'name_taken']);

    const listed = await as(server, team.viewer, { method: 'GET', url: url(team) });
    expect(listed.json<QueryListsResponse>().lists.map((list) => list.name)).toEqual(['alpha', 'press']);

    const replaced = await putItems(team, 'press', ['https://www.theguardian.com/world']);
    expect(replaced.json<QueryListResponse>().items).toEqual(['https://www.theguardian.com/world']);
    expect((await putItems(team, 'nothere', ['a'])).statusCode).toBe(404);

    expect((await as(server, team.owner, { method: 'DELETE', url: url(team, 'press') })).statusCode).toBe(
      204,
    );
    expect((await as(server, team.owner, { method: 'DELETE', url: url(team, 'press') })).statusCode).toBe(
      404,
    );
  });

  it.each([
    [{ name: 'Press', kind: 'sites', items: ['bbc.co.uk'] }, 'invalid_request'],
    [{ name: 'x'.repeat(41), kind: 'sites', items: ['bbc.co.uk'] }, 'invalid_request'],
    [{ name: 'press', kind: 'hashtags', items: ['bbc.co.uk'] }, 'invalid_request'],
    [{ name: 'press', kind: 'sites', items: [] }, 'invalid_request'],
    [
      { name: 'press', kind: 'sites', items: Array.from({ length: 1001 }, (_, i) => `s${i}.com`) },
      'invalid_request',
    ],
    [{ name: 'press', kind: 'sites', items: ['bbc.co.uk', 'not a site'] }, 'invalid_list_item'],
    [{ name: 'people', kind: 'authors', items: ['alice', 'a/b'] }, 'invalid_list_item'],
    [{ name: 'words', kind: 'words', items: ['cof*'] }, 'invalid_list_item'],
  ])('refuses %# with %s', async (payload, error) => {
    const team = await createTeam(server);
    const res = await createList(team, payload);
    expect([res.statusCode, res.json().error], res.body).toEqual([400, error]);
  });

  it('says item 2 is not a domain', async () => {
    const team = await createTeam(server);
    const res = await createList(team, { name: 'press', kind: 'sites', items: ['bbc.co.uk', 'not a site'] });
    expect(res.json().message).toBe('Item 2: "not a site" is not a domain such as bbc.co.uk, or an address.');
  });
});

describe('queries that read a list', () => {
  it('the editor counts the current items, and says an unknown list or one of the wrong kind with its column', async () => {
    const team = await createTeam(server);
    await createList(team, { name: 'people', kind: 'authors', items: ['Alice'] });
    const alice = await validate(team, 'author:alice');
    const bob = await validate(team, 'author:bob.kim');
    expect(alice.matches).toBeGreaterThan(0);
    expect(bob.matches).not.toBe(alice.matches);

    const listed = await validate(team, 'author:list(people)');
    expect(listed).toMatchObject({ valid: true, normalized: 'author:list(people)', matches: alice.matches });
    await putItems(team, 'people', ['bob.kim']);
    expect((await validate(team, 'author:list(people)')).matches).toBe(bob.matches);
    await putItems(team, 'people', ['alice', 'bob.kim']);
    expect((await validate(team, 'author:list(people)')).matches).toBe(
      (await validate(team, 'author:alice OR author:bob.kim')).matches,
    );

    expect(await validate(team, 'coffee site:list(press)')).toEqual({
      valid: false,
      errors: [{ message: 'No list named press in this workspace, at column 8', column: 8, length: 16 }],
    });
    expect((await validate(team, 'list(people)')).errors).toEqual([
      {
        message: 'people is a list of authors (author:list(…)), not a list of words (list(…)), at column 1',
        column: 1,
        length: 12,
      },
    ]);
  });

  it('a saved query says which lists it reads, its dashboard reads them now, and they cannot be deleted', async () => {
    const team = await createTeam(server);
    const unknown = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Rivals', query: 'author:list(people) OR list(drinks)' },
    });
    expect([unknown.statusCode, unknown.json().error]).toEqual([400, 'invalid_query']);

    await createList(team, { name: 'people', kind: 'authors', items: ['alice'] });
    await createList(team, { name: 'drinks', kind: 'words', items: ['tea'] });
    const saved = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Rivals', query: 'author:list(people) OR list(drinks)' },
    });
    expect(saved.statusCode, saved.body).toBe(201);
    const query = saved.json<SavedQuery>();
    expect(query).toMatchObject({
      normalized: 'author:list(people) OR list(drinks)',
      lists: ['people', 'drinks'],
    });

    const overview = async (body: object) => {
      const res = await as(server, team.viewer, {
        method: 'POST',
        url: '/social/insights/overview',
        payload: {
          workspace_id: team.workspaceId,
          filters: { from: '2025-12-01T00:00:00Z', to: '2026-02-01T00:00:00Z' },
          ...body,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<OverviewResponse>().totals.mentions.value;
    };
    const before = await overview({ saved_query_id: query.id });
    expect(before).toBe(await overview({ query: 'author:alice OR tea' }));
    await putItems(team, 'drinks', ['café', 'ramen', 'vaccines']);
    const after = await overview({ saved_query_id: query.id });
    expect(after).toBe(await overview({ query: 'author:alice OR café OR ramen OR vaccines' }));
    expect(after).not.toBe(before);

    const lists = await as(server, team.viewer, { method: 'GET', url: url(team) });
    expect(lists.json<QueryListsResponse>().lists.map((list) => [list.name, list.used_by])).toEqual([
      ['drinks', ['Rivals']],
      ['people', ['Rivals']],
    ]);
    const refused = await as(server, team.owner, { method: 'DELETE', url: url(team, 'drinks') });
    expect([refused.statusCode, refused.json()]).toEqual([
      409,
      { error: 'list_in_use', message: 'The list drinks is read by "Rivals": change those queries first.' },
    ]);
  });

  it('discover searches with the current items and says the query as written', async () => {
    const team = await createTeam(server);
    await createList(team, { name: 'drinks', kind: 'words', items: ['tea'] });
    const discover = async (query: string) => {
      const res = await as(server, team.viewer, {
        method: 'POST',
        url: '/social/discover',
        payload: {
          workspace_id: team.workspaceId,
          query,
          filters: { from: '2025-12-01T00:00:00Z', to: '2026-02-01T00:00:00Z' },
          limit: 100,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ posts: Array<{ id: string }>; counted: string }>();
      return { ids: body.posts.map((post) => post.id).sort(), counted: body.counted };
    };
    const tea = await discover('list(drinks)');
    expect(tea.ids).toEqual((await discover('tea')).ids);
    expect(tea.ids.length).toBeGreaterThan(0);
    expect(tea.counted).toContain('"list(drinks)"');
    await putItems(team, 'drinks', ['ramen', 'vaccines']);
    const edited = await discover('list(drinks)');
    expect(edited.ids).toEqual((await discover('ramen OR vaccines')).ids);
    expect(edited.ids).not.toEqual(tea.ids);
  });

  it('a tracked query collects with its lists as they are at the next poll or event', async () => {
    const team = await createTeam(server);
    await createList(team, { name: 'drinks', kind: 'words', items: ['tea', 'flat white'] });
    const saved = await as(server, team.owner, {
      method: 'POST',
      url: `/api/workspaces/${team.workspaceId}/saved-queries`,
      payload: { name: 'Drinks', query: 'coffee OR list(drinks)' },
    });
    const { id } = saved.json<SavedQuery>();
    const on = await as(server, team.owner, {
      method: 'PUT',
      url: `/api/workspaces/${team.workspaceId}/saved-queries/${id}/tracking`,
      payload: { enabled: true, sources: ['hackernews'] },
    });
    expect(on.statusCode, on.body).toBe(200);
    const evaluated = async () => {
      const tracked = await trackedQueriesFor(server.pool as unknown as pg.Pool, 'hackernews');
      const query = tracked.find((q) => q.savedQueryId === id)!;
      const parsed = parseWithLists(query.text, query.lists);
      return parsed.ok ? printQuery(parsed.ast) : parsed.errors;
    };
    expect(await evaluated()).toBe('coffee OR tea OR "flat white"');
    await putItems(team, 'drinks', ['matcha']);
    expect(await evaluated()).toBe('coffee OR matcha');
  });

  it('documents the list routes with their bodies and answers', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
    const paths = res.json<{
      paths: Record<string, Record<string, { responses: object; requestBody?: object }>>;
    }>().paths;
    expect(Object.keys(paths['/api/workspaces/{id}/lists']!).sort()).toEqual(['get', 'post']);
    const one = paths['/api/workspaces/{id}/lists/{name}']!;
    expect(Object.keys(one).sort()).toEqual(['delete', 'put']);
    expect(one.put!.requestBody).toBeDefined();
    expect(Object.keys(one.delete!.responses)).toEqual(expect.arrayContaining(['204', '403', '404', '409']));
  });
});
