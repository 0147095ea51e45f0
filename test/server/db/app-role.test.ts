// The server's connections log in as the application role (server/db/app-role.ts), not as the owner that migrates
// nor as a superuser: what went around the corpus guard is refused to it (SET session_replication_role, ALTER TABLE
// … DISABLE TRIGGER), and the outbox and the corpus version take no plain writes (migration 0033); what the server
// does on the change path still works as that role, a month of posts made and dropped included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConsumer, unregisterConsumer } from '@server/analytics/outbox';
import { poolOf } from '@server/social/corpus/copy';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import type pg from 'pg';

let server: TestServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await createTestServer();
  pool = poolOf(server.db);
});
afterAll(() => server.close());

const refusal = (statement: string) =>
  pool.query(statement).then(
    () => 'accepted',
    (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
  );

describe("the application's database role", () => {
  it('is neither a superuser nor the owner of the tables', async () => {
    const { rows } = await pool.query<{ me: string; superuser: boolean; owner: string }>(
      `SELECT current_user AS me, r.rolsuper AS superuser, pg_get_userbyid(c.relowner) AS owner
       FROM pg_roles r, pg_class c WHERE r.rolname = current_user AND c.oid = 'public.posts'::regclass`,
    );
    expect(rows[0]).toEqual({ me: 'murmur_app', superuser: false, owner: 'murmur' });
  });

  it('cannot turn the triggers off, for a session or a table', async () => {
    expect(await refusal('SET session_replication_role = replica')).toBe(
      '42501: permission denied to set parameter "session_replication_role"',
    );
    expect(await refusal('ALTER TABLE posts DISABLE TRIGGER corpus_guard')).toBe(
      '42501: must be owner of table posts',
    );
    expect(await refusal('ALTER TABLE analytics_outbox DISABLE TRIGGER ALL')).toBe(
      '42501: must be owner of table analytics_outbox',
    );
    expect(await refusal('DROP TRIGGER corpus_guard ON corpus_state')).toBe(
      '42501: must be owner of relation corpus_state',
    );
  });

  it('writes the outbox and the corpus version only on the change path', async () => {
    await registerConsumer(server.db);
    const outside = "outside the corpus's change path";
    expect(await refusal('UPDATE corpus_state SET version = version + 1')).toBe(
      `P0001: UPDATE of corpus_state ${outside}`,
    );
    expect(await refusal('DELETE FROM corpus_state')).toBe(`P0001: DELETE of corpus_state ${outside}`);
    expect(
      await refusal(
        "INSERT INTO analytics_outbox (corpus_version, post_ids, profile_ids) VALUES (1, '{}', '{}')",
      ),
    ).toBe(`P0001: INSERT of analytics_outbox ${outside}`);
    expect(await refusal('DELETE FROM analytics_outbox')).toBe(
      `P0001: DELETE of analytics_outbox ${outside}`,
    );
    expect(await refusal('TRUNCATE analytics_outbox')).toBe(`P0001: TRUNCATE of analytics_outbox ${outside}`);
    // The path itself: a batch recorded (the version raised with it), and the consumer's unregistering empties it.
    const before = (await pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v;
    await pool.query(
      `BEGIN; SELECT corpus_changes_begin(); SELECT corpus_touch(); SELECT analytics_outbox_append('{1}', '{}'); COMMIT`,
    );
    const after = (await pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v;
    expect(Number(after)).toBe(Number(before) + 1);
    expect((await pool.query('SELECT 1 FROM analytics_outbox')).rowCount).toBe(1);
    expect(await unregisterConsumer(server.db)).toBe(true);
    expect((await pool.query('SELECT 1 FROM analytics_outbox')).rowCount).toBe(0);
  });

  it('makes a month of posts, guarded, and drops it only on the change path', async () => {
    const made = await pool.query<{ made: boolean }>(
      "SELECT posts_partition_ensure('2031-03-15T00:00:00Z') AS made",
    );
    expect(made.rows[0]!.made).toBe(true);
    expect(
      (
        await pool.query(
          "SELECT 1 FROM pg_trigger WHERE tgrelid = 'posts_2031_03'::regclass AND tgname = 'corpus_guard'",
        )
      ).rowCount,
    ).toBe(1);
    expect(await refusal('DELETE FROM posts_2031_03')).toMatch(/^P0001: DELETE of posts_2031_03 outside/);
    expect(await refusal("SELECT posts_partition_drop('posts_2031_03')")).toMatch(
      /^P0001: posts_partition_drop\(posts_2031_03\) outside the corpus's change path/,
    );
    expect(await refusal('DROP TABLE posts_2031_03')).toBe('42501: must be owner of table posts_2031_03');
    const dropped = await pool.query<{ name: string }>(
      "SELECT posts_partitions_drop_before('2031-05-01T00:00:00Z') AS name",
    );
    expect(dropped.rows.map((row) => row.name)).toContain('posts_2031_03');
    expect((await pool.query("SELECT to_regclass('public.posts_2031_03') AS t")).rows[0]).toEqual({
      t: null,
    });
  });
});
