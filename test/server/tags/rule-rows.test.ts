// How a post's tag rows are kept right (migrations 0049, 0050, 0054; server/db/tags-schema.ts): by one check a
// statement, after the rules, tags and people the rows name are locked as a key locks them, so none can be deleted
// under a write naming it; a deleted rule's rows go with it, a deleted tag's manual rows with it, a deleted person's
// rows stay naming no one; a rule's id and tag and a tag's id never change; a workspace's deletion takes every row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { workspaces } from '@server/db/schema';
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

/** A workspace with a category of two tags, and a rule on each. */
async function workspace() {
  const { db } = server;
  const [space] = await db.insert(workspaces).values({ name: 'Rule rows' }).returning();
  const workspaceId = space!.id;
  const [topic] = await db.insert(tagCategories).values({ workspaceId, name: 'Topic' }).returning();
  const [drink, food] = await db
    .insert(tags)
    .values(['Drink', 'Food'].map((name) => ({ workspaceId, categoryId: topic!.id, name })))
    .returning();
  const [tea, bread] = await db
    .insert(tagRules)
    .values([
      { workspaceId, tagId: drink!.id, query: 'tea' },
      { workspaceId, tagId: food!.id, query: 'bread' },
    ])
    .returning();
  return { workspaceId, drink: drink!, food: food!, tea: tea!, bread: bread! };
}

const ruleRows = (workspaceId: string, tagId: string, ruleId: string, ids: number[]) =>
  sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
    SELECT ${workspaceId}, unnest(${`{${ids.join(',')}}`}::bigint[]), ${tagId}::uuid, 'rule', ${ruleId}::uuid`;

async function rows(workspaceId: string): Promise<string[]> {
  const { rows: found } = await server.db.execute<{ row: string }>(
    sql`SELECT concat_ws(' ', set_by, coalesce(t.name, 'gone'), post_id) AS row
      FROM post_tags p LEFT JOIN tags t ON t.id = p.tag_id
      WHERE p.workspace_id = ${workspaceId} ORDER BY 1`,
  );
  return found.map((r) => r.row);
}

it("refuses a rule row whose rule is not there or names another tag, and a manual row of no tag, each by its key's name", async () => {
  const { workspaceId, drink, food, tea } = await workspace();
  // One bad row among good ones refuses the whole statement.
  await expect(
    server.db.execute(sql`${ruleRows(workspaceId, drink.id, tea.id, posts.slice(0, 3))}
      UNION ALL SELECT ${workspaceId}, ${posts[3]!}, ${food.id}::uuid, 'rule', ${tea.id}::uuid`),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_rule_tag_fk' } });
  await expect(
    server.db.execute(
      ruleRows(workspaceId, drink.id, '00000000-0000-4000-8000-000000000001', posts.slice(0, 1)),
    ),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_rule_tag_fk' } });
  await expect(
    server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by)
      VALUES (${workspaceId}, ${posts[0]!}, gen_random_uuid(), 'manual')`),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_manual_tag_fk' } });
  await expect(
    server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, user_id)
      VALUES (${workspaceId}, ${posts[0]!}, ${drink.id}::uuid, 'manual', gen_random_uuid())`),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_user_id_users_id_fk' } });
  // An update is checked as an insert is.
  const person = await server.createUser();
  await server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, user_id)
    VALUES (${workspaceId}, ${posts[0]!}, ${drink.id}::uuid, 'manual', ${person.id}::uuid)`);
  await expect(
    server.db.execute(
      sql`UPDATE post_tags SET user_id = gen_random_uuid() WHERE workspace_id = ${workspaceId}`,
    ),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_user_id_users_id_fk' } });
  expect(await rows(workspaceId)).toEqual([`manual Drink ${posts[0]}`]);
});

it("deletes a tag's manual rows with it, keeps a tag's id, leaves a deleted person's rows unnamed", async () => {
  const { workspaceId, drink, food, bread } = await workspace();
  const person = await server.createUser();
  const manual = (tagId: string, post: number) =>
    server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, user_id)
      VALUES (${workspaceId}, ${post}, ${tagId}::uuid, 'manual', ${person.id}::uuid)`);
  await manual(drink.id, posts[0]!);
  await manual(food.id, posts[1]!);
  await server.db.execute(ruleRows(workspaceId, food.id, bread.id, posts.slice(2, 3)));
  await expect(
    server.db.execute(sql`UPDATE tags SET id = gen_random_uuid() WHERE id = ${drink.id}::uuid`),
  ).rejects.toMatchObject({ cause: { code: '23503', constraint: 'post_tags_manual_tag_fk' } });
  await server.db.execute(sql`DELETE FROM users WHERE id = ${person.id}::uuid`);
  const { rows: named } = await server.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM post_tags WHERE workspace_id = ${workspaceId} AND user_id IS NOT NULL`,
  );
  expect(named[0]!.n).toBe(0);
  await server.db.execute(sql`DELETE FROM tags WHERE id = ${drink.id}::uuid`);
  expect(await rows(workspaceId)).toEqual([`manual Food ${posts[1]}`, `rule Food ${posts[2]}`]);
  // A category's deletion reaches its tags, and their manual rows and rules' rows with them.
  await server.db.execute(sql`DELETE FROM tag_categories WHERE workspace_id = ${workspaceId}`);
  expect(await rows(workspaceId)).toEqual([]);
});

it("deletes a rule's rows with it, and only them; keeps a rule's id and tag; a workspace's deletion takes every row", async () => {
  const { workspaceId, drink, food, tea, bread } = await workspace();
  await server.db.execute(ruleRows(workspaceId, drink.id, tea.id, posts.slice(0, 2)));
  await server.db.execute(ruleRows(workspaceId, food.id, bread.id, posts.slice(1, 3)));
  await server.db.execute(sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by)
    VALUES (${workspaceId}, ${posts[0]!}, ${drink.id}::uuid, 'manual')`);
  await expect(
    server.db.execute(sql`UPDATE tag_rules SET tag_id = ${food.id}::uuid WHERE id = ${tea.id}::uuid`),
  ).rejects.toMatchObject({ cause: { constraint: 'post_tags_rule_tag_fk' } });
  await server.db.execute(sql`UPDATE tag_rules SET query = 'chai' WHERE id = ${tea.id}::uuid`);
  await server.db.execute(sql`DELETE FROM tag_rules WHERE id = ${tea.id}::uuid`);
  expect(await rows(workspaceId)).toEqual([
    `manual Drink ${posts[0]}`,
    `rule Food ${posts[1]}`,
    `rule Food ${posts[2]}`,
  ]);
  await server.db.execute(sql`DELETE FROM workspaces WHERE id = ${workspaceId}`);
  expect(await rows(workspaceId)).toEqual([]);
});

it('holds a tag against deletion while a manual row naming it is written, then deletes the row with it', async () => {
  const { workspaceId, drink } = await workspace();
  const writer = await server.pool.connect();
  const deleter = await server.pool.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(
      `INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by) VALUES ($1, $2, $3, 'manual')`,
      [workspaceId, posts[0], drink.id],
    );
    await deleter.query(`SET lock_timeout = '300ms'`);
    await expect(deleter.query('DELETE FROM tags WHERE id = $1', [drink.id])).rejects.toMatchObject({
      code: '55P03',
    });
    await writer.query('COMMIT');
    expect(await rows(workspaceId)).toEqual([`manual Drink ${posts[0]}`]);
    await deleter.query('DELETE FROM tags WHERE id = $1', [drink.id]);
    expect(await rows(workspaceId)).toEqual([]);
  } finally {
    await writer.query('ROLLBACK').catch(() => {});
    writer.release();
    deleter.release();
  }
});

it('holds a person against deletion while a manual row naming them is written, then leaves it unnamed', async () => {
  const { workspaceId, drink } = await workspace();
  const person = await server.createUser();
  const writer = await server.pool.connect();
  const deleter = await server.pool.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(
      `INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, user_id) VALUES ($1, $2, $3, 'manual', $4)`,
      [workspaceId, posts[0], drink.id, person.id],
    );
    await deleter.query(`SET lock_timeout = '300ms'`);
    await expect(deleter.query('DELETE FROM users WHERE id = $1', [person.id])).rejects.toMatchObject({
      code: '55P03',
    });
    await writer.query('COMMIT');
    await deleter.query('DELETE FROM users WHERE id = $1', [person.id]);
    const { rows: left } = await server.pool.query<{ user_id: string | null }>(
      'SELECT user_id FROM post_tags WHERE workspace_id = $1',
      [workspaceId],
    );
    expect(left).toEqual([{ user_id: null }]);
  } finally {
    await writer.query('ROLLBACK').catch(() => {});
    writer.release();
    deleter.release();
  }
});

it('holds a rule against deletion while its rows are being written, then deletes them with it', async () => {
  const { workspaceId, drink, tea } = await workspace();
  const writer = await server.pool.connect();
  const deleter = await server.pool.connect();
  try {
    await writer.query('BEGIN');
    await writer.query(
      `INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
        SELECT $1, unnest($2::bigint[]), $3::uuid, 'rule', $4::uuid`,
      [workspaceId, posts.slice(0, 3), drink.id, tea.id],
    );
    await deleter.query(`SET lock_timeout = '300ms'`);
    await expect(deleter.query('DELETE FROM tag_rules WHERE id = $1', [tea.id])).rejects.toMatchObject({
      code: '55P03',
    });
    await writer.query('COMMIT');
    expect(await rows(workspaceId)).toHaveLength(3);
    await deleter.query('DELETE FROM tag_rules WHERE id = $1', [tea.id]);
    expect(await rows(workspaceId)).toEqual([]);
  } finally {
    await writer.query('ROLLBACK').catch(() => {});
    writer.release();
    deleter.release();
  }
});
