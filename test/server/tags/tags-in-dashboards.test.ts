// Tags in the dashboards (issue 55, item 3): the analytics store learns which tags each post carries through the
// corpus's outbox (migration 0044) and a rebuild, so the `tag` refinement (with exclude) and a breakdown by a category
// (POST /social/insights/categories) count exactly the posts PostgreSQL says carry them: manual over rules, a rule
// removed taking only its own, each change seen at once; a workspace names only its own tags and categories.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import type { PostsResponse } from '@contract/insights-responses';
import type {
  TagCategoriesResponse,
  TagCategoryResponse,
  TagCountsResponse,
  TagResponse,
} from '@contract/tags';
import { openStore } from '@server/analytics/open';
import { rebuildStore } from '@server/analytics/rebuild';
import { STORE_DATABASE } from '@server/analytics/layout';
import { applyTagRules } from '@server/tags/apply';
import { insertPosts } from '@server/social/corpus/changes';
import { tagRules } from '@server/db/tags-schema';
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

async function postIds(): Promise<Map<string, number>> {
  const { rows } = await server.db.execute<{ external_id: string; id: string }>(
    sql`SELECT external_id, id::text AS id FROM post_keys`,
  );
  return new Map(rows.map((row) => [row.external_id, Number(row.id)]));
}

async function created<T>(t: Team, url: string, payload: object): Promise<T> {
  const res = await as(server, t.manager, { method: 'POST', url: `${base(t)}${url}`, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<T>();
}

/** Every rule caught up, and the store holding every batch written since. */
async function settled() {
  for (let i = 0; i < 20; i += 1) await applyTagRules(server.db);
  await server.storeCaughtUp();
}

/** Settings › Categories' counts of `t`'s tags, asked by `person`. */
const tagCounts = (t: Team, person: Person) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/tag-counts',
    payload: { workspace_id: t.workspaceId },
  });

const breakdown = (t: Team, categoryId: string, person: Person = t.viewer, refine: object[] = []) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/categories',
    payload: { workspace_id: t.workspaceId, query: '', filters: FILTERS, refine, category_id: categoryId },
  });

/** The names of the posts the filtered-posts list gives for `refine`, sorted. */
async function listed(t: Team, refine: object[]): Promise<string[]> {
  const res = await as(server, t.viewer, {
    method: 'POST',
    url: '/social/insights/filtered-posts',
    payload: { workspace_id: t.workspaceId, query: '', filters: FILTERS, refine, limit: 100 },
  });
  expect(res.statusCode, res.body).toBe(200);
  const ids = new Map([...(await postIds())].map(([name, id]) => [id, name]));
  return res
    .json<PostsResponse>()
    .posts.map((post) => ids.get(Number(post.id))!)
    .sort();
}

describe('tags in the dashboards', () => {
  let topic: TagCategoryResponse;
  let drinks: TagResponse;
  let love: TagResponse;
  let empty: TagResponse;
  let ruleId: string;

  beforeAll(async () => {
    topic = await created(team, '/tag-categories', { name: 'Topic' });
    drinks = await created(team, `/tag-categories/${topic.id}/tags`, { name: 'Drinks' });
    love = await created(team, `/tag-categories/${topic.id}/tags`, { name: 'Love' });
    empty = await created(team, `/tag-categories/${topic.id}/tags`, { name: 'Empty' });
    ruleId = (await created<{ id: string }>(team, `/tags/${drinks.id}/rules`, { query: 'tea OR coffee' })).id;
    const ids = await postIds();
    const res = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/tags/${love.id}/posts`,
      payload: { post_ids: [ids.get('love')!, ids.get('better')!], tagged: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    await settled();
  });

  it('breaks the scope down by a category: per tag, the tagged and the untagged', async () => {
    const res = await breakdown(team, topic.id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<CategoryBreakdownResponse>();
    const drinking = matching('tea OR coffee');
    const either = new Set([...drinking, 'love', 'better']);
    expect(body.category).toEqual({ id: topic.id, name: 'Topic' });
    expect(body.posts).toBe(ALL.length);
    expect(body.tagged).toBe(either.size);
    expect(body.untagged).toBe(ALL.length - either.size);
    expect(body.tags).toEqual([
      { id: drinks.id, name: 'Drinks', posts: drinking.length, share: drinking.length / ALL.length },
      { id: love.id, name: 'Love', posts: 2, share: 2 / ALL.length },
      { id: empty.id, name: 'Empty', posts: 0, share: 0 },
    ]);
    expect(body.counted).toContain('Broken down by the category "Topic"');
    // A category without tags: every post untagged.
    const bare = await created<TagCategoryResponse>(team, '/tag-categories', { name: 'Bare' });
    const none = await breakdown(team, bare.id);
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json<CategoryBreakdownResponse>()).toMatchObject({
      tags: [],
      posts: ALL.length,
      tagged: 0,
      untagged: ALL.length,
    });
  });

  it("counts each tag's posts for the settings from the store, for any member of the workspace alone", async () => {
    const res = await tagCounts(team, team.viewer);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<TagCountsResponse>();
    expect(body.data_as_of).toBeUndefined();
    expect(body.applying).toBe(false);
    expect(new Map(body.tags.map((tag) => [tag.tag_id, tag.posts]))).toEqual(
      new Map([
        [drinks.id, matching('tea OR coffee').length],
        [love.id, 2],
        [empty.id, 0],
      ]),
    );
    // A rule that has not looked at every stored post yet (written here, so no route applies it): counts will grow.
    const [waiting] = await server.db
      .insert(tagRules)
      .values({ workspaceId: team.workspaceId, tagId: empty.id, query: 'zzz' })
      .returning({ id: tagRules.id });
    const growing = await tagCounts(team, team.viewer);
    expect(growing.json<TagCountsResponse>()).toMatchObject({ tags: body.tags, applying: true });
    await server.db.delete(tagRules).where(eq(tagRules.id, waiting!.id));
    expect((await tagCounts(team, other.viewer)).statusCode).toBe(404);
    const theirs = await tagCounts(other, other.viewer);
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json<TagCountsResponse>().tags).toEqual([]);
  });

  it('filters by tags, with exclude, and names them in the counted sentence', async () => {
    const drinking = matching('tea OR coffee');
    expect(await listed(team, [{ field: 'tag', values: [drinks.id] }])).toEqual(drinking);
    expect(await listed(team, [{ field: 'tag', values: [drinks.id], exclude: true }])).toEqual(
      ALL.filter((name) => !drinking.includes(name)),
    );
    expect(await listed(team, [{ field: 'tag', values: [love.id, empty.id] }])).toEqual(['better', 'love']);
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: {
        workspace_id: team.workspaceId,
        query: '',
        filters: FILTERS,
        refine: [{ field: 'tag', values: [love.id] }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ counted: string }>().counted).toContain('refined to tagged "Topic › Love"');
  });

  it("writes each post's tags in the posts export", async () => {
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/export/posts',
      payload: { workspace_id: team.workspaceId, query: '', filters: FILTERS, sort: 'recency' },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const lines = res.body.split('\r\n').filter((line) => line && !line.startsWith('#'));
    const header = lines[0]!.split(',');
    const tagsAt = header.indexOf('tags');
    expect(tagsAt).toBeGreaterThan(0);
    const ids = new Map([...(await postIds())].map(([name, id]) => [String(id), name]));
    // Texts may hold commas: the tags are the record's last field (sort by recency adds no column after it).
    const byName = new Map(
      lines.slice(1).map((line) => [ids.get(line.split(',')[0]!)!, line.slice(line.lastIndexOf(',') + 1)]),
    );
    expect(header.at(-1)).toBe('tags');
    expect(byName.get('love')).toBe('Topic › Drinks; Topic › Love');
    expect(byName.get('better')).toBe('Topic › Drinks; Topic › Love');
    const drinking = matching('tea OR coffee');
    for (const name of ALL) {
      const want = [
        drinking.includes(name) && 'Topic › Drinks',
        ['love', 'better'].includes(name) && 'Topic › Love',
      ]
        .filter(Boolean)
        .join('; ');
      expect(byName.get(name), name).toBe(want);
    }
  });

  it("shows every member each listed post's tags, the workspace's own, and none in a shared view", async () => {
    const drinking = matching('tea OR coffee');
    const want = (name: string) =>
      [
        drinking.includes(name) && { name: 'Drinks', set_by: 'rule' },
        ['love', 'better'].includes(name) && { name: 'Love', set_by: 'manual' },
      ].filter(Boolean);
    const names = new Map([...(await postIds())].map(([name, id]) => [id, name]));
    const tagsOf = (posts: PostsResponse['posts']) =>
      new Map(
        posts.map((post) => [
          names.get(post.id)!,
          post.tags?.map((tag) => ({ name: tag.name, set_by: tag.set_by })),
        ]),
      );
    const payload = { workspace_id: team.workspaceId, query: '', filters: FILTERS, limit: 100 };
    const list = await as(server, team.viewer, { method: 'POST', url: '/social/insights/posts', payload });
    expect(list.statusCode, list.body).toBe(200);
    const listed = tagsOf(list.json<PostsResponse>().posts);
    expect([...listed.keys()].sort()).toEqual(ALL);
    for (const name of ALL) expect(listed.get(name), name).toEqual(want(name));
    const love = list.json<PostsResponse>().posts.find((post) => names.get(post.id) === 'love')!;
    expect(love.tags![0]).toMatchObject({ category_id: topic.id, category: 'Topic', tag_id: drinks.id });

    // Discover and the overview's top posts carry them too.
    const found = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/discover',
      payload: { workspace_id: team.workspaceId, query: 'love OR better', filters: FILTERS },
    });
    expect(found.statusCode, found.body).toBe(200);
    const discovered = tagsOf(found.json<PostsResponse>().posts);
    expect([...discovered.keys()].sort()).toEqual(matching('love OR better'));
    for (const [name, tags] of discovered) expect(tags, name).toEqual(want(name));
    const overview = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/overview',
      payload: { workspace_id: team.workspaceId, query: '', filters: FILTERS },
    });
    const top = overview.json<{ top_posts: PostsResponse['posts'] }>().top_posts;
    expect(top.length).toBeGreaterThan(0);
    for (const [name, tags] of tagsOf(top)) expect(tags, name).toEqual(want(name));

    // Another workspace reads the same posts with its own tags: none.
    const theirs = await as(server, other.viewer, {
      method: 'POST',
      url: '/social/insights/posts',
      payload: { ...payload, workspace_id: other.workspaceId },
    });
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.json<PostsResponse>().posts.map((post) => post.tags)).toEqual(ALL.map(() => []));

    // A shared view of the list shows no tag: a tag is the team's own word for a post.
    const link = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/share-links`,
      payload: { dashboard: 'posts', view: { query: '', filters: FILTERS } },
    });
    expect(link.statusCode, link.body).toBe(201);
    const shared = await server.app.inject({
      method: 'POST',
      url: '/social/shared/answer',
      payload: { token: link.json<{ token: string }>().token },
    });
    expect(shared.statusCode, shared.body).toBe(200);
    const sharedPosts = shared.json<PostsResponse>().posts;
    expect(sharedPosts.length).toBeGreaterThan(0);
    expect(sharedPosts.every((post) => post.tags === undefined)).toBe(true);
  });

  it('names a tag and its category as renamed, in an answer asked again (a rename changes no post)', async () => {
    const payload = {
      workspace_id: team.workspaceId,
      query: '',
      filters: FILTERS,
      refine: [{ field: 'tag', values: [love.id] }],
      limit: 100,
    };
    const read = async () => {
      const res = await as(server, team.viewer, {
        method: 'POST',
        url: '/social/insights/filtered-posts',
        payload,
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<PostsResponse & { counted: string }>();
      const chips = body.posts.flatMap((post) => post.tags ?? []).filter((tag) => tag.tag_id === love.id);
      return {
        counted: body.counted,
        chips: [...new Set(chips.map((tag) => `${tag.category} › ${tag.name}`))],
      };
    };
    const rename = async (url: string, name: string) => {
      const res = await as(server, team.manager, {
        method: 'PATCH',
        url: `${base(team)}${url}`,
        payload: { name },
      });
      expect(res.statusCode, res.body).toBe(204);
    };
    expect(await read()).toEqual({
      counted: expect.stringContaining('"Topic › Love"'),
      chips: ['Topic › Love'],
    });
    const { hits } = server.app.analytics.cache.stats;
    expect((await read()).chips).toEqual(['Topic › Love']);
    expect(server.app.analytics.cache.stats.hits).toBe(hits + 1);
    try {
      await rename(`/tags/${love.id}`, 'Affection');
      await rename(`/tag-categories/${topic.id}`, 'Theme');
      const renamed = await read();
      expect(renamed.counted).toContain('refined to tagged "Theme › Affection"');
      expect(renamed.chips).toEqual(['Theme › Affection']);
    } finally {
      await rename(`/tags/${love.id}`, 'Love');
      await rename(`/tag-categories/${topic.id}`, 'Topic');
    }
    expect(await read()).toEqual({
      counted: expect.stringContaining('"Topic › Love"'),
      chips: ['Topic › Love'],
    });
  });

  it('follows a removal by hand (over the rule) and a rule deleted, at once', async () => {
    const ids = await postIds();
    const [first] = matching('tea OR coffee');
    const removed = await as(server, team.manager, {
      method: 'POST',
      url: `${base(team)}/tags/${drinks.id}/posts`,
      payload: { post_ids: [ids.get(first!)!], tagged: false },
    });
    expect(removed.statusCode, removed.body).toBe(200);
    await settled();
    expect(await listed(team, [{ field: 'tag', values: [drinks.id] }])).toEqual(
      matching('tea OR coffee').filter((name) => name !== first),
    );
    const deleted = await as(server, team.manager, {
      method: 'DELETE',
      url: `${base(team)}/tag-rules/${ruleId}`,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    await settled();
    expect(await listed(team, [{ field: 'tag', values: [drinks.id] }])).toEqual([]);
    const body = (await breakdown(team, topic.id)).json<CategoryBreakdownResponse>();
    expect(body.tags.map((t) => [t.name, t.posts])).toEqual([
      ['Love', 2],
      ['Drinks', 0],
      ['Empty', 0],
    ]);
  });

  it("names only the workspace's own tags and categories", async () => {
    const theirs = await created<TagCategoryResponse>(other, '/tag-categories', { name: 'Theirs' });
    const res = await breakdown(team, theirs.id);
    expect(res.statusCode).toBe(404);
    expect(res.json<{ error: string }>().error).toBe('category_not_found');
    const theirTag = await created<TagResponse>(other, `/tag-categories/${theirs.id}/tags`, { name: 'T' });
    const refined = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/filtered-posts',
      payload: {
        workspace_id: team.workspaceId,
        query: '',
        filters: FILTERS,
        refine: [{ field: 'tag', values: [theirTag.id] }],
      },
    });
    expect(refined.statusCode).toBe(404);
    expect(refined.json<{ error: string }>().error).toBe('tag_not_found');
    const outsider = await breakdown(team, topic.id, other.owner);
    expect(outsider.statusCode).toBe(404);
  });

  it("goes with a removed post, in PostgreSQL and in the store: the settings' count drops it", async () => {
    const mine = await createTeam(server);
    const category = await created<TagCategoryResponse>(mine, '/tag-categories', { name: 'Fleeting' });
    const gone = await created<TagResponse>(mine, `/tag-categories/${category.id}/tags`, { name: 'Gone' });
    const ruled = await created<TagResponse>(mine, `/tag-categories/${category.id}/tags`, { name: 'Ruled' });
    const { rows } = await server.db.execute<{ id: string }>(sql`SELECT id::text FROM profiles LIMIT 1`);
    const post = (externalId: string) => ({
      platform: 'x' as const,
      externalId,
      authorId: Number(rows[0]!.id),
      text: 'A fleeting remark',
      language: 'en',
      postedAt: new Date('2026-01-01T12:00:00Z'),
    });
    const [kept, removed] = (await insertPosts(server.db, [post('fleeting-1'), post('fleeting-2')])) as [
      number,
      number,
    ];
    const tagged = await as(server, mine.manager, {
      method: 'POST',
      url: `${base(mine)}/tags/${gone.id}/posts`,
      payload: { post_ids: [kept, removed], tagged: true },
    });
    expect(tagged.statusCode, tagged.body).toBe(200);
    // A rule's rows go too: its past matches' bits (ranges: 0057), and rows found by their rule's index, the posts'
    // holding manual rows only (0055). Its past posts are tagged in the background: until it says it has looked at
    // every stored post.
    await created(mine, `/tags/${ruled.id}/rules`, { query: '"fleeting remark"' });
    await expect
      .poll(
        async () => {
          await applyTagRules(server.db);
          const res = await as(server, mine.viewer, { method: 'GET', url: `${base(mine)}/tag-categories` });
          return res.json<TagCategoriesResponse>().categories.flatMap((c) => c.tags.flatMap((t) => t.rules));
        },
        { timeout: 20_000 },
      )
      .toMatchObject([{ caught_up: true }]);
    await settled();
    const count = async () => {
      const res = await tagCounts(mine, mine.viewer);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<TagCountsResponse>().tags;
    };
    const byTag = (tags: Array<{ tag_id: string; posts: number }>) =>
      Object.fromEntries(tags.map((t) => [t.tag_id, t.posts]));
    expect(byTag(await count())).toEqual({ [gone.id]: 2, [ruled.id]: 2 });
    await server.pool.query(`SELECT corpus_delete_posts('id = ${removed}')`);
    await server.storeCaughtUp();
    expect(byTag(await count())).toEqual({ [gone.id]: 1, [ruled.id]: 1 });
    const held = await server.analytics!.store!.query<{ post: string }>(
      `SELECT toString(post) AS post FROM ${STORE_DATABASE}.post_tags WHERE tag IN ({tags:Array(UUID)})`,
      { tags: [gone.id, ruled.id] },
    );
    expect(held).toEqual([{ post: String(kept) }, { post: String(kept) }]);
    const left = await server.db.execute<{ post: string; set_by: string }>(
      sql`SELECT post_id::text AS post, set_by FROM post_tag_rows WHERE post_id IN (${kept}, ${removed})
        ORDER BY set_by`,
    );
    expect(left.rows).toEqual([
      { post: String(kept), set_by: 'manual' },
      { post: String(kept), set_by: 'rule' },
    ]);
  });

  it('is copied whole by a rebuild', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-tags-rebuild-'));
    const store = await openStore({ dataDir: dir }, () => {});
    try {
      await rebuildStore({ db: server.db, pool: server.pool }, store);
      const held = await store.query<{ tag: string; post: string }>(
        `SELECT toString(tag) AS tag, toString(post) AS post FROM ${STORE_DATABASE}.post_tags ORDER BY tag, post`,
      );
      const live = await server.analytics!.store!.query<{ tag: string; post: string }>(
        `SELECT toString(tag) AS tag, toString(post) AS post FROM ${STORE_DATABASE}.post_tags ORDER BY tag, post`,
      );
      expect(held).toEqual(live);
      expect(held.filter((row) => row.tag === love.id)).toHaveLength(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('goes with the corpus when it is emptied (post ids start again at 1)', async () => {
    await server.db.execute(sql`SELECT corpus_truncate()`);
    await server.storeCaughtUp();
    const { rows } = await server.db.execute<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM post_tag_rows`,
    );
    expect(rows[0]!.n).toBe('0');
    const held = await server.analytics!.store!.query<{ n: string }>(
      `SELECT count() AS n FROM ${STORE_DATABASE}.post_tags`,
    );
    expect(held).toEqual([{ n: '0' }]);
  });
});
