// A tag rule's past matches read from the analytics store (server/tags/past.ts): on a generated corpus the rows a rule
// writes from the store equal those the matcher path (server/tags/apply.ts) writes, for generated queries; a store
// behind PostgreSQL answers what it holds and the posts after its newest go through the live path, none missed or
// doubled; a rule changed through the API is read from the store again; a tag set or removed by hand wins over the
// rule, and deleting the rule takes only what it set; a store that cannot answer leaves the rule to the matcher path,
// and the rule's state says so.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { PostTagsResponse, TagCategoriesResponse, TagCountsResponse, TagResponse } from '@contract/tags';
import type { ApplyPoint } from '@server/analytics/applier';
import { tagRules } from '@server/db/tags-schema';
import { applyTagRules, newestPostId } from '@server/tags/apply';
import { applyPastFromStore } from '@server/social/insights/rule-past';
import { generatedCorpus, queryArb, writeCorpus } from '@test/support/reference/corpus';
import { withUrls } from '@test/support/reference/links';
import type { TestServer } from '@test/support/server-harness';
import { as, type Team } from '@test/support/workspaces.fixtures';
import type { runningService } from '../analytics/dashboards.fixtures';
import { coffeeWithStore } from './store-rules.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let team: Team;
let coffee: TagResponse;
let holdAt: ApplyPoint | null = null;
let held: { release: () => void } | null = null;
let reachedHold: (() => void) | null = null;

let fixture: Awaited<ReturnType<typeof coffeeWithStore>>;
beforeAll(async () => {
  fixture = await coffeeWithStore(withUrls(generatedCorpus(7310, 500), 7313), 'rules-from-store', {
    // A reader does not wait for the applier (readWaitMs 0): a store held behind answers as it is.
    at: async (point) => {
      if (point !== holdAt) return;
      holdAt = null;
      await new Promise<void>((release) => {
        held = { release };
        reachedHold?.();
      });
    },
  });
  ({ server, running, team, coffee } = fixture);
}, 240_000);
afterAll(async () => {
  held?.release();
  await running?.close();
  await server?.close();
});

const base = () => fixture.base;
const created = <T>(url: string, payload: object) => fixture.created<T>(url, payload);
const newRule = (query: string) => fixture.newRule(query);

async function ruleOf(id: string) {
  const [row] = await server.db.select().from(tagRules).where(eq(tagRules.id, id));
  return row!;
}

/** The posts of the rule's rows (post_tags's and its ranges': migration 0057), ascending. */
async function rowsOf(ruleId: string): Promise<number[]> {
  const { rows } = await server.db.execute<{ post_id: string }>(
    sql`SELECT post_id::text FROM post_tag_rows WHERE rule_id = ${ruleId} ORDER BY post_id`,
  );
  return rows.map((row) => Number(row.post_id));
}

/** Runs `body` while the store's applier is held before reading the batch that `write` appends: the store behind. */
async function whileHeld(write: () => Promise<unknown>, body: () => Promise<void>) {
  // Every batch before it applied first (an earlier test's posts, or tags): held at one of them, the store would be
  // behind by more than `write` (a pass then found fewer posts than the matcher under load).
  await running.service.catchUp(60_000);
  holdAt = 'read';
  const reached = new Promise<void>((resolve) => (reachedHold = resolve));
  await write();
  await reached;
  try {
    await body();
  } finally {
    held?.release();
    held = null;
  }
}

/** The rows the matcher path alone writes for `query` (a rule of its own, deleted after). */
async function matcherRows(query: string): Promise<number[]> {
  const id = await newRule(query);
  await applyTagRules(server.db, { ruleIds: [id] });
  const rows = await rowsOf(id);
  await server.db.delete(tagRules).where(eq(tagRules.id, id));
  return rows;
}

async function categories(): Promise<TagCategoriesResponse> {
  const res = await as(server, team.viewer, { method: 'GET', url: `${base()}/tag-categories` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<TagCategoriesResponse>();
}

/** The Coffee tag's rules once each has looked at every stored post (the routes apply them in the background). */
async function caughtUp() {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const rules = (await categories()).categories[0]!.tags.find((t) => t.id === coffee.id)!.rules;
    if (rules.every((r) => r.caught_up && r.past_from !== null)) return rules;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The rules did not catch up');
}

/**
 * How many posts carry `tagId` by the store's count (Settings › Categories), once every rule is done and the store has
 * applied every batch: until then the answer says a rule is applying, or (this service's reader does not wait) that
 * the store is behind.
 */
async function settledCount(tagId: string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const res = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/insights/tag-counts',
      payload: { workspace_id: team.workspaceId },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<TagCountsResponse>();
    if (!body.data_as_of && !body.applying) return body.tags.find((t) => t.tag_id === tagId)!.posts;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('The store did not catch up');
}

describe("a rule's past matches from the analytics store", () => {
  it('writes the rows the matcher path writes, for generated queries', async () => {
    // And subreddit: (the matcher path reads it from posts.url, the store from its own column).
    const queries = [
      ...fc.sample(queryArb, { seed: 7311, numRuns: 40 }),
      'subreddit:coffee',
      'subreddit:r/Tea OR tea',
    ];
    const newest = await newestPostId(server.db);
    let matched = 0;
    for (const query of queries) {
      const id = await newRule(query);
      expect(await applyPastFromStore(server.db, running.service, id)).toBe('store');
      const rule = await ruleOf(id);
      expect({ query, cursor: rule.cursor, from: rule.pastFrom }).toEqual({
        query,
        cursor: newest,
        from: 'store',
      });
      // Caught up: the live path has nothing left to do.
      expect(await applyTagRules(server.db, { ruleIds: [id] })).toBe(0);
      const rows = await rowsOf(id);
      expect({ query, rows }).toEqual({ query, rows: await matcherRows(query) });
      if (rows.length > 0) matched += 1;
      await server.db.delete(tagRules).where(eq(tagRules.id, id));
    }
    // Not vacuous: most queries match posts.
    expect(matched).toBeGreaterThan(20);
  }, 120_000);

  it('writes a pass again over the rows of one that stopped before its cursor was set', async () => {
    const query = 'coffee OR tea';
    const want = await matcherRows(query);
    expect(want.length).toBeGreaterThan(2);
    const id = await newRule(query);
    // A pass of before migration 0057 that stopped after two of its batches: some of its rows in post_tags, the rule
    // still at cursor 0.
    const { rows: written } = await server.db.execute<{ id: string }>(
      sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
        SELECT ${team.workspaceId}, unnest(${`{${want.slice(0, 2).join(',')}}`}::bigint[]), ${coffee.id}::uuid,
          'rule', ${id}::uuid RETURNING post_id::text AS id`,
    );
    expect(written).toHaveLength(2);
    expect(await applyPastFromStore(server.db, running.service, id)).toBe('store');
    expect(await rowsOf(id)).toEqual(want);
    await server.db.delete(tagRules).where(eq(tagRules.id, id));
  });

  it('carries a rule on over the posts the store has not applied yet, by the live path', async () => {
    const before = await newestPostId(server.db);
    await whileHeld(
      () => writeCorpus(server, generatedCorpus(7312, 120), 'later'),
      async () => {
        const query = 'coffee OR tea';
        const id = await newRule(query);
        expect(await applyPastFromStore(server.db, running.service, id)).toBe('store');
        // The store's newest post: the new posts are above it, left to the live path.
        expect((await ruleOf(id)).cursor).toBe(before);
        expect((await rowsOf(id)).every((post) => post <= before)).toBe(true);
        await applyTagRules(server.db, { ruleIds: [id] });
        const rows = await rowsOf(id);
        expect(rows.some((post) => post > before)).toBe(true);
        expect(rows).toEqual(await matcherRows(query));
        await server.db.delete(tagRules).where(eq(tagRules.id, id));
      },
    );
  }, 60_000);

  it('leaves out a post PostgreSQL deleted after the store named it', async () => {
    const query = 'coffee OR tea';
    const [victim] = await matcherRows(query);
    // The store holds the post: the deletion's batch waits to be applied.
    await whileHeld(
      () => server.pool.query(`SELECT corpus_delete_posts('id = ${victim}')`),
      async () => {
        const id = await newRule(query);
        expect(await applyPastFromStore(server.db, running.service, id)).toBe('store');
        const rows = await rowsOf(id);
        expect(rows).not.toContain(victim);
        expect(rows).toEqual(await matcherRows(query));
        await server.db.delete(tagRules).where(eq(tagRules.id, id));
      },
    );
  }, 60_000);

  it('reads the store after a round that writes for longer than a dashboard would wait', async () => {
    holdAt = 'applied';
    const reached = new Promise<void>((resolve) => (reachedHold = resolve));
    await writeCorpus(server, generatedCorpus(7314, 40), 'meanwhile');
    await reached;
    const query = 'coffee NOT tea';
    const id = await newRule(query);
    try {
      // The round is writing: each read waits up to 2 s for it to end. A dashboard gives up after 3 reads (503).
      const pass = applyPastFromStore(server.db, running.service, id);
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      held?.release();
      held = null;
      expect(await pass).toBe('store');
      expect((await ruleOf(id)).pastFrom).toBe('store');
      await applyTagRules(server.db, { ruleIds: [id] });
      expect(await rowsOf(id)).toEqual(await matcherRows(query));
    } finally {
      held?.release();
      held = null;
      await server.db.delete(tagRules).where(eq(tagRules.id, id));
    }
  }, 60_000);

  it('applies a rule created and changed through the API from the store; manual tags win over it', async () => {
    const { rows } = await server.db.execute<{ id: string }>(sql`SELECT id::text FROM post_keys ORDER BY id`);
    const all = rows.map((row) => Number(row.id));
    const coffeeRows = await matcherRows('coffee');
    const teaRows = await matcherRows('tea AND NOT coffee');
    const [removedByHand, keptByHand] = [coffeeRows[0]!, all.find((post) => !coffeeRows.includes(post))!];
    const setByHand = async (post: number, tagged: boolean) => {
      const res = await as(server, team.manager, {
        method: 'POST',
        url: `${base()}/tags/${coffee.id}/posts`,
        payload: { post_ids: [post], tagged },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await setByHand(removedByHand, false);
    await setByHand(keptByHand, true);
    const rule = await created<{ id: string }>(`/tags/${coffee.id}/rules`, { query: 'coffee' });
    expect((await caughtUp()).map((r) => [r.past_from, r.past_note])).toEqual([['store', null]]);
    expect(await rowsOf(rule.id)).toEqual(coffeeRows);
    const carried = new Set([...coffeeRows.filter((post) => post !== removedByHand), keptByHand]);
    expect(await settledCount(coffee.id)).toBe(carried.size);
    const tagsOf = async (post: number) => {
      const res = await as(server, team.viewer, { method: 'GET', url: `${base()}/posts/${post}/tags` });
      return res.json<PostTagsResponse>().tags.map((t) => t.set_by);
    };
    expect(await tagsOf(removedByHand)).toEqual([]);
    expect(await tagsOf(keptByHand)).toEqual(['manual']);
    expect(await tagsOf(coffeeRows[1]!)).toEqual(['rule']);

    // Changed: what it set is taken back, and its new query's matches are read from the store.
    const changed = await as(server, team.manager, {
      method: 'PUT',
      url: `${base()}/tag-rules/${rule.id}`,
      payload: { query: 'tea AND NOT coffee' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await caughtUp()).map((r) => r.past_from)).toEqual(['store']);
    expect(await rowsOf(rule.id)).toEqual(teaRows);

    // Deleted: only what it set goes; the tag set by hand stays.
    const gone = await as(server, team.manager, { method: 'DELETE', url: `${base()}/tag-rules/${rule.id}` });
    expect(gone.statusCode).toBe(204);
    expect(await tagsOf(keptByHand)).toEqual(['manual']);
    expect(await tagsOf(teaRows[0]!)).toEqual(teaRows[0] === keptByHand ? ['manual'] : []);
  }, 60_000);

  it('leaves the rule to the matcher path when the store cannot answer, and says so', async () => {
    const query = 'latte OR milk';
    // No store (ANALYTICS_STORE=off).
    const off = await newRule(query);
    expect(await applyPastFromStore(server.db, undefined, off)).toBe('matcher');
    const state = await ruleOf(off);
    expect(state.cursor).toBe(0);
    expect(state.pastFrom).toBe('matcher');
    expect(state.pastNote).toMatch(/^The analytics store could not answer: /);
    await applyTagRules(server.db, { ruleIds: [off] });
    expect(await rowsOf(off)).toEqual(await matcherRows(query));
    await server.db.delete(tagRules).where(eq(tagRules.id, off));

    // The store stopped (gone, as one preparing is not ready), through the API: the rule is applied by the matcher.
    await running.service.stop();
    await created(`/tags/${coffee.id}/rules`, { query });
    const [rule] = await caughtUp();
    expect(rule!.past_from).toBe('matcher');
    expect(rule!.past_note).toMatch(/^The analytics store could not answer: /);
    expect(await rowsOf(rule!.id)).toEqual(await matcherRows(query));
  }, 60_000);
});
