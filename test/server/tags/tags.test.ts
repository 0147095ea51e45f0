// Categories and tags (issue 55, item 3): who may read and change them; a rule tags the past posts it matches (in the
// background) and a new post as it arrives; a tag set or removed by hand wins over rules; removing a rule removes only
// what it set; a rule's query is checked like a saved query's, lists included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type {
  PostTagsResponse,
  TagCategoriesResponse,
  TagCategoryResponse,
  TagResponse,
} from '@contract/tags';
import { insertPosts } from '@server/social/corpus/changes';
import { applyTagRules } from '@server/tags/apply';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/query-corpus.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
});
afterAll(() => server.close());

const base = (team: Team) => `/api/workspaces/${team.workspaceId}`;

/** Post ids by their external id (the corpus fixture names its posts). */
async function postIds(): Promise<Map<string, number>> {
  const { rows } = await server.db.execute<{ external_id: string; id: string }>(
    sql`SELECT external_id, id::text AS id FROM post_keys`,
  );
  return new Map(rows.map((row) => [row.external_id, Number(row.id)]));
}

async function category(team: Team, name: string, person: Person = team.manager) {
  const res = await as(server, person, {
    method: 'POST',
    url: `${base(team)}/tag-categories`,
    payload: { name },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<TagCategoryResponse>();
}
async function tag(team: Team, categoryId: string, name: string) {
  const res = await as(server, team.manager, {
    method: 'POST',
    url: `${base(team)}/tag-categories/${categoryId}/tags`,
    payload: { name },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<TagResponse>();
}
async function rule(team: Team, tagId: string, query: string) {
  const res = await as(server, team.manager, {
    method: 'POST',
    url: `${base(team)}/tags/${tagId}/rules`,
    payload: { query },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>();
}
const setTag = (team: Team, tagId: string, ids: number[], tagged: boolean, person: Person = team.manager) =>
  as(server, person, {
    method: 'POST',
    url: `${base(team)}/tags/${tagId}/posts`,
    payload: { post_ids: ids, tagged },
  });

/** The workspace's categories once every rule has looked at every stored post. */
async function caughtUp(team: Team): Promise<TagCategoriesResponse> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await applyTagRules(server.db);
    const res = await as(server, team.viewer, { method: 'GET', url: `${base(team)}/tag-categories` });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<TagCategoriesResponse>();
    if (body.categories.every((c) => c.tags.every((t) => t.rules.every((r) => r.caught_up)))) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The rules did not catch up');
}

/** The names of the posts carrying `tagId`, sorted. */
async function tagged(team: Team, tagId: string): Promise<string[]> {
  await caughtUp(team);
  const names: string[] = [];
  for (const [name, id] of await postIds()) {
    const res = await as(server, team.viewer, { method: 'GET', url: `${base(team)}/posts/${id}/tags` });
    expect(res.statusCode, res.body).toBe(200);
    if (res.json<PostTagsResponse>().tags.some((t) => t.tag_id === tagId)) names.push(name);
  }
  return names.sort();
}

describe('roles', () => {
  const callers = ['owner', 'manager', 'viewer', 'outsider', 'signed out'] as const;
  // prettier-ignore
  const expected: Record<string, number[]> = {
    //                  owner manager viewer outsider signed-out
    'GET categories':   [200,  200,    200,   404,     401],
    'POST category':    [201,  201,    403,   404,     401],
    'POST tag':         [201,  201,    403,   404,     401],
    'POST rule':        [201,  201,    403,   404,     401],
    'POST tag posts':   [200,  200,    403,   404,     401],
    'GET post tags':    [200,  200,    200,   404,     401],
    'DELETE rule':      [204,  204,    403,   404,     401],
  };
  describe.each(Object.entries(expected))('%s', (endpoint, statuses) => {
    it.each(callers.map((caller, i) => [caller, statuses[i]!] as const))(
      'as %s → %i',
      async (caller, status) => {
        const team = await createTeam(server);
        const topic = await category(team, 'Topic');
        const drinks = await tag(team, topic.id, 'Drinks');
        const tea = await rule(team, drinks.id, 'tea');
        const love = (await postIds()).get('love')!;
        const person = caller === 'signed out' ? null : team[caller];
        const requests = {
          'GET categories': { method: 'GET', url: `${base(team)}/tag-categories` },
          'POST category': {
            method: 'POST',
            url: `${base(team)}/tag-categories`,
            payload: { name: 'Product' },
          },
          'POST tag': {
            method: 'POST',
            url: `${base(team)}/tag-categories/${topic.id}/tags`,
            payload: { name: 'X' },
          },
          'POST rule': {
            method: 'POST',
            url: `${base(team)}/tags/${drinks.id}/rules`,
            payload: { query: 'coffee' },
          },
          'POST tag posts': {
            method: 'POST',
            url: `${base(team)}/tags/${drinks.id}/posts`,
            payload: { post_ids: [love], tagged: true },
          },
          'GET post tags': { method: 'GET', url: `${base(team)}/posts/${love}/tags` },
          'DELETE rule': { method: 'DELETE', url: `${base(team)}/tag-rules/${tea.id}` },
        } as const;
        const res = await as(server, person, requests[endpoint as keyof typeof requests]);
        expect(res.statusCode, res.body).toBe(status);
        if (status === 403) expect(res.json().error).toBe('forbidden');
        await caughtUp(team);
      },
    );
  });
});

describe('categories and tags', () => {
  it('keeps names unique per workspace and per category, and checks a rule like a saved query', async () => {
    const team = await createTeam(server);
    const topic = await category(team, 'Topic');
    const again = await as(server, team.owner, {
      method: 'POST',
      url: `${base(team)}/tag-categories`,
      payload: { name: 'topic' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('name_taken');
    await category(await createTeam(server), 'Topic');
    await category(team, 'Product');
    const rename = (name: string) =>
      as(server, team.manager, {
        method: 'PATCH',
        url: `${base(team)}/tag-categories/${topic.id}`,
        payload: { name },
      });
    expect((await rename('PRODUCT')).statusCode).toBe(409);
    expect((await rename('Topics')).statusCode).toBe(204);
    const renamed = await caughtUp(team);
    expect(renamed.categories.map((c) => c.name)).toEqual(['Product', 'Topics']);
    await tag(team, topic.id, 'Coffee');
    const sameTag = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/tag-categories/${topic.id}/tags`,
      payload: { name: 'COFFEE' },
    });
    expect(sameTag.statusCode).toBe(409);
    const tea = await tag(team, topic.id, 'Tea');
    const renameTag = (name: string, person: Person = team.manager) =>
      as(server, person, { method: 'PATCH', url: `${base(team)}/tags/${tea.id}`, payload: { name } });
    expect((await renameTag('coffee')).statusCode).toBe(409);
    expect((await renameTag('Green tea', team.viewer)).statusCode).toBe(403);
    expect((await renameTag('Green tea')).statusCode).toBe(204);
    const topics = (await caughtUp(team)).categories.find((c) => c.id === topic.id)!;
    expect(topics.tags.map((t) => t.name)).toEqual(['Coffee', 'Green tea']);
    const invalid = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/tags/${tea.id}/rules`,
      payload: { query: 'tea AND' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().error).toBe('invalid_query');
    const noList = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/tags/${tea.id}/rules`,
      payload: { query: 'list(drinks)' },
    });
    expect(noList.statusCode).toBe(400);
  });

  it('tags past posts by rule, reading the workspace lists', async () => {
    const team = await createTeam(server);
    const list = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/lists`,
      payload: { name: 'drinks', kind: 'words', items: ['tea', 'café'] },
    });
    expect(list.statusCode, list.body).toBe(201);
    const topic = await category(team, 'Topic');
    const drinks = await tag(team, topic.id, 'Drinks');
    await rule(team, drinks.id, 'list(drinks)');
    expect(await tagged(team, drinks.id)).toEqual(['better', 'cafe', 'fire', 'love']);
    const body = await caughtUp(team);
    // How many posts carry a tag is a figure: the analytics store's, which this server does not run.
    const counts = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/tag-counts',
      payload: { workspace_id: team.workspaceId },
    });
    expect(counts.statusCode).toBe(503);
    expect(counts.json().error).toBe('figures_unavailable');
    // A list a rule reads cannot be deleted until the rule stops reading it.
    const refused = await as(server, team.owner, { method: 'DELETE', url: `${base(team)}/lists/drinks` });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      'The list drinks is read by the rules of the tag Topic › Drinks: change those queries first.',
    );
    const ruleId = body.categories[0]!.tags[0]!.rules[0]!.id;
    const changed = await as(server, team.manager, {
      method: 'PUT',
      url: `${base(team)}/tag-rules/${ruleId}`,
      payload: { query: 'tea' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const deleted = await as(server, team.owner, { method: 'DELETE', url: `${base(team)}/lists/drinks` });
    expect(deleted.statusCode).toBe(204);
    expect(await tagged(team, drinks.id)).toEqual(['better', 'fire', 'love']);
    // Another workspace's tags are its own.
    const other = await createTeam(server);
    expect((await caughtUp(other)).categories).toEqual([]);
  });

  it('tags a new post as it arrives', async () => {
    const team = await createTeam(server);
    const topic = await category(team, 'Topic');
    const matcha = await tag(team, topic.id, 'Matcha');
    await rule(team, matcha.id, 'matcha');
    expect(await tagged(team, matcha.id)).toEqual([]);
    const other = await createTeam(server);
    const drinks = await tag(other, (await category(other, 'Drinks')).id, 'Green');
    await rule(other, drinks.id, 'matcha OR "green tea"');
    await caughtUp(other);
    const ids = await postIds();
    const { rows } = await server.db.execute<{ author_id: string }>(
      sql`SELECT author_id::text FROM posts WHERE id = ${ids.get('love')!}`,
    );
    const [id] = await insertPosts(server.db, [
      {
        platform: 'x',
        externalId: `matcha-${team.workspaceId}`,
        authorId: Number(rows[0]!.author_id),
        text: 'Iced matcha latte today',
        language: 'en',
        postedAt: new Date('2026-01-02T00:00:00Z'),
      },
    ]);
    // Every rule is caught up at the same cursor: one batch over the new post serves them all.
    expect(await applyTagRules(server.db)).toBe(1);
    expect(await applyTagRules(server.db)).toBe(0);
    const res = await as(server, team.viewer, { method: 'GET', url: `${base(team)}/posts/${id}/tags` });
    expect(res.json<PostTagsResponse>().tags).toEqual([
      { tag_id: matcha.id, name: 'Matcha', category_id: topic.id, category: 'Topic', set_by: 'rule' },
    ]);
    const theirs = await as(server, other.viewer, { method: 'GET', url: `${base(other)}/posts/${id}/tags` });
    expect(theirs.json<PostTagsResponse>().tags.map((t) => t.name)).toEqual(['Green']);
  });

  it('lets a manual removal stick against the rule, and a manual tag outlive it', async () => {
    const team = await createTeam(server);
    const topic = await category(team, 'Topic');
    const coffee = await tag(team, topic.id, 'Coffee');
    const ids = await postIds();
    // Removed by hand before the rule, and after it: neither comes back.
    expect((await setTag(team, coffee.id, [ids.get('flat')!], false)).statusCode).toBe(200);
    const first = await rule(team, coffee.id, 'coffee');
    expect(await tagged(team, coffee.id)).toEqual(['better', 'decaf', 'love', 'shop']);
    const removed = await setTag(team, coffee.id, [ids.get('love')!, ids.get('shop')!], false);
    expect(removed.json()).toEqual({ changed: 2 });
    // Set by hand on a post no rule matches, and on one a rule matches.
    const manual = await setTag(team, coffee.id, [ids.get('tokyo')!, ids.get('decaf')!], true, team.owner);
    expect(manual.json()).toEqual({ changed: 2 });
    // A second rule matching a removed post does not set it again.
    await rule(team, coffee.id, 'love OR decaf');
    expect(await tagged(team, coffee.id)).toEqual(['better', 'decaf', 'tokyo']);
    // Removing the first rule removes only what it set: decaf and tokyo were set by hand.
    const gone = await as(server, team.manager, {
      method: 'DELETE',
      url: `${base(team)}/tag-rules/${first.id}`,
    });
    expect(gone.statusCode).toBe(204);
    expect(await tagged(team, coffee.id)).toEqual(['decaf', 'tokyo']);
    const decaf = await as(server, team.viewer, {
      method: 'GET',
      url: `${base(team)}/posts/${ids.get('decaf')!}/tags`,
    });
    expect(decaf.json<PostTagsResponse>().tags.map((t) => t.set_by)).toEqual(['manual']);
    // An unknown post refuses the whole request.
    const missing = await setTag(team, coffee.id, [ids.get('fire')!, 999_999_999], true);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('post_not_found');
    expect(await tagged(team, coffee.id)).toEqual(['decaf', 'tokyo']);
  });

  it("changing a rule's query takes back what it set; deleting a category takes its tags away", async () => {
    const team = await createTeam(server);
    const topic = await category(team, 'Topic');
    const drink = await tag(team, topic.id, 'Drink');
    const tea = await rule(team, drink.id, 'tea');
    expect(await tagged(team, drink.id)).toEqual(['better', 'fire', 'love']);
    const changed = await as(server, team.manager, {
      method: 'PUT',
      url: `${base(team)}/tag-rules/${tea.id}`,
      payload: { query: 'decaf' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(await tagged(team, drink.id)).toEqual(['decaf']);
    // A manual row beside the rule's: the category's deletion takes both (rule-rows.test.ts says how).
    expect((await setTag(team, drink.id, [(await postIds()).get('tokyo')!], true)).statusCode).toBe(200);
    expect(await tagged(team, drink.id)).toEqual(['decaf', 'tokyo']);
    const deleted = await as(server, team.owner, {
      method: 'DELETE',
      url: `${base(team)}/tag-categories/${topic.id}`,
    });
    expect(deleted.statusCode).toBe(204);
    expect((await caughtUp(team)).categories).toEqual([]);
    const { rows } = await server.db.execute<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM post_tag_rows WHERE workspace_id = ${team.workspaceId}`,
    );
    expect(rows[0]!.n).toBe('0');
  });
});

it('documents its routes in the OpenAPI document', async () => {
  const res = await server.app.inject({ method: 'GET', url: '/api/docs/json' });
  const paths = res.json<{ paths: Record<string, Record<string, unknown>> }>().paths;
  expect(Object.keys(paths['/api/workspaces/{id}/tag-categories']!).sort()).toEqual(['get', 'post']);
  expect(Object.keys(paths['/api/workspaces/{id}/tag-rules/{ruleId}']!).sort()).toEqual(['delete', 'put']);
  expect(paths['/api/workspaces/{id}/tags/{tagId}/posts']).toHaveProperty('post');
  expect(paths['/api/workspaces/{id}/posts/{postId}/tags']).toHaveProperty('get');
});
