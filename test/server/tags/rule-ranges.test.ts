// A rule's past matches kept as bits by range of 4,096 posts (migration 0057; server/social/insights/rule-past.ts):
// read back as rows of post_tags (the view post_tag_rows, rule_post_range_rows: server/tags/carried.ts), a removed
// post's bit cleared in the transaction that removes it (a range left empty deleted), and the ranges gone with their
// rule and with the corpus. That the analytics store follows them is rules-from-store.test.ts's and
// tags-in-dashboards.test.ts's; a dropped month's, posts-partitions.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { workspaces } from '@server/db/schema';
import { RANGE, rangesOf } from '@server/social/insights/rule-past';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { insertCorpus } from '@test/support/query-corpus.fixtures';

let server: TestServer;
let posts: number[];
beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await insertCorpus(server);
  const { rows } = await server.db.execute<{ id: string }>(
    sql`SELECT id::text AS id FROM post_keys ORDER BY id`,
  );
  posts = rows.map((row) => Number(row.id));
});
afterAll(() => server.close());

/** A workspace with a tag and two rules on it. */
async function rules() {
  const { db } = server;
  const [space] = await db.insert(workspaces).values({ name: 'Rule ranges' }).returning();
  const workspaceId = space!.id;
  const [topic] = await db.insert(tagCategories).values({ workspaceId, name: 'Topic' }).returning();
  const [drink] = await db
    .insert(tags)
    .values({ workspaceId, categoryId: topic!.id, name: 'Drink' })
    .returning();
  const [tea, coffee] = await db
    .insert(tagRules)
    .values(['tea', 'coffee'].map((query) => ({ workspaceId, tagId: drink!.id, query })))
    .returning();
  return { workspaceId, tagId: drink!.id, tea: tea!, coffee: coffee! };
}

/** Writes `ids` (ascending) as the rule's ranges, as the past pass does. */
async function writeRanges(ruleId: string, ids: number[]) {
  const { starts, bits } = rangesOf(ids);
  await server.db.execute(sql`INSERT INTO rule_post_ranges (rule_id, start, bits)
    SELECT ${ruleId}::uuid, u.start, ('x' || u.hex)::bit(4096)
    FROM unnest(${`{${starts.join(',')}}`}::bigint[], ${`{${bits.join(',')}}`}::text[]) u(start, hex)`);
}

/** The rule's posts, read as rows of post_tags. */
async function postsOf(ruleId: string): Promise<number[]> {
  const { rows } = await server.db.execute<{ post: string }>(
    sql`SELECT post_id::text AS post FROM post_tag_rows WHERE rule_id = ${ruleId} ORDER BY post_id`,
  );
  return rows.map((row) => Number(row.post));
}

const rangeCount = async (ruleId: string) => {
  const { rows } = await server.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM rule_post_ranges WHERE rule_id = ${ruleId}`,
  );
  return rows[0]!.n;
};

describe("a rule's past matches by range of posts", () => {
  it('sets bit o of a range for post start + o, the leftmost first', () => {
    const { starts, bits } = rangesOf([1, 8, RANGE - 1, RANGE, 3 * RANGE + 9]);
    expect(starts).toEqual([0, RANGE, 3 * RANGE]);
    expect(bits.map((hex) => hex.length)).toEqual([RANGE / 4, RANGE / 4, RANGE / 4]);
    // Post 1 is bit 1 (0x40 of the first byte), post 8 bit 8 (0x80 of the second), post 4095 the last bit.
    expect(bits[0]!.slice(0, 4)).toBe('4080');
    expect(bits[0]!.slice(-2)).toBe('01');
    expect(bits[1]!.slice(0, 2)).toBe('80');
    expect(bits[2]!.slice(0, 4)).toBe('0040');
    expect(rangesOf([])).toEqual({ starts: [], bits: [] });
  });

  it("reads a range's posts back as rows of post_tags, at the edges of a range too, and only the rules asked", async () => {
    const { workspaceId, tagId, tea, coffee } = await rules();
    const ids = [1, 2, RANGE - 1, RANGE, 2 * RANGE - 1, 5 * RANGE + 100];
    await writeRanges(tea.id, ids);
    await writeRanges(coffee.id, [2, RANGE]);
    expect(await rangeCount(tea.id)).toBe(3);
    expect(await postsOf(tea.id)).toEqual(ids);
    const asked = (rulesSql: string) =>
      server.pool.query<{ post: string; rule: string; tag: string; workspace: string; set_by: string }>(
        `SELECT post_id::text AS post, rule_id::text AS rule, tag_id::text AS tag, workspace_id AS workspace, set_by
        FROM rule_post_range_rows($1::bigint[]${rulesSql}) ORDER BY post_id, rule_id = $2 DESC`,
        rulesSql ? [[2, 3, RANGE, RANGE + 1, 5 * RANGE + 100], tea.id, [tea.id]] : [[2, 3, RANGE], tea.id],
      );
    const every = await asked('');
    expect(every.rows.map((row) => [row.post, row.rule])).toEqual([
      ['2', tea.id],
      ['2', coffee.id],
      [String(RANGE), tea.id],
      [String(RANGE), coffee.id],
    ]);
    expect(
      every.rows.every((row) => row.tag === tagId && row.workspace === workspaceId && row.set_by === 'rule'),
    ).toBe(true);
    const teaOnly = await asked(', $3::uuid[]');
    expect(teaOnly.rows.map((row) => row.post)).toEqual(['2', String(RANGE), String(5 * RANGE + 100)]);
    // Its rule deleted, its ranges go (their key), and only its.
    await server.db.delete(tagRules).where(eq(tagRules.id, tea.id));
    expect(await rangeCount(tea.id)).toBe(0);
    expect(await postsOf(coffee.id)).toEqual([2, RANGE]);
  });

  it('clears a removed post in the transaction that removes it, and deletes a range left with none', async () => {
    const { tea, coffee } = await rules();
    const [first, second, third] = posts;
    await writeRanges(tea.id, [first!, second!]);
    await writeRanges(coffee.id, [second!, third!]);
    await server.pool.query(`SELECT corpus_delete_posts('id = ${first}')`);
    expect(await postsOf(tea.id)).toEqual([second]);
    await server.pool.query(`SELECT corpus_delete_posts('id = ${second}')`);
    expect(await postsOf(tea.id)).toEqual([]);
    expect(await rangeCount(tea.id)).toBe(0);
    expect(await postsOf(coffee.id)).toEqual([third]);
    // A changed post keeps its id, and its bits.
    await server.pool.query(`SELECT corpus_update_posts('id = ${third}', 'likes = likes + 1')`);
    expect(await postsOf(coffee.id)).toEqual([third]);
  });

  it('goes with the corpus when it is emptied (post ids start again at 1)', async () => {
    const { coffee } = await rules();
    await writeRanges(coffee.id, posts.slice(-3));
    await server.db.execute(sql`SELECT corpus_truncate()`);
    expect(await rangeCount(coffee.id)).toBe(0);
  });
});
