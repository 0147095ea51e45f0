// Plain SQL on the corpus tables is refused outside the change path (migration 0018): posts (its partitions too, a
// month made later included), post_keys and profiles, so a hand-written UPDATE can no longer leave the external keys,
// the corpus version and the analytics store's outbox behind the posts. `npm run corpus:check` recounts the keys against
// the posts and holds the store to PostgreSQL, names the differences a bypass left, and with --repair makes them exact.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusChecksum } from '@server/social/corpus/checksum';
import { poolOf } from '@server/social/corpus/copy';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const END = Date.UTC(2025, 5, 1);

let server: TestServer;
let pool: pg.Pool;
let databaseUrl: string;

beforeAll(async () => {
  const { inject } = await import('vitest');
  // No store here: corpus:check runs the store itself, and is refused while a server holds it.
  server = await createTestServer({}, { store: false });
  pool = poolOf(server.db);
  const { rows } = await pool.query<{ name: string }>('SELECT current_database() AS name');
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${rows[0]!.name}`;
  databaseUrl = url.toString();
  await generateCorpus(pool, { seed: 11, posts: 1_500, end: END, batchSize: 500 });
});
afterAll(() => server.close());

const version = async () =>
  Number((await pool.query<{ v: string }>('SELECT version AS v FROM corpus_state')).rows[0]!.v);

const keyMismatches = async () =>
  (
    await pool.query<{ n: number }>(`SELECT (
      (SELECT count(*) FROM post_keys k WHERE NOT EXISTS (SELECT FROM posts p WHERE p.id = k.id
        AND p.posted_at = k.posted_at AND p.platform = k.platform AND p.external_id = k.external_id))
      + (SELECT count(*) FROM posts p WHERE NOT EXISTS (SELECT FROM post_keys k WHERE p.id = k.id
        AND p.posted_at = k.posted_at AND p.platform = k.platform AND p.external_id = k.external_id)))::int AS n`)
  ).rows[0]!.n;

/** Runs `npm run corpus:check` (the script itself) against this file's database. */
function corpusCheck(...args: string[]) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/corpus-check.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.on('exit', (code) => done({ code, stdout, stderr })),
  );
}

describe('writes outside the change path', () => {
  const refused = [
    `UPDATE posts SET likes = likes + 1000 WHERE platform = 'x'`,
    `UPDATE posts_2025_05 SET likes = likes + 1000`,
    `DELETE FROM posts WHERE id IN (SELECT id FROM posts ORDER BY id LIMIT 3)`,
    `DELETE FROM posts_2025_04`,
    `INSERT INTO posts (platform, external_id, author_id, text, posted_at)
       SELECT platform, external_id || '-copy', author_id, text, posted_at FROM posts LIMIT 1`,
    `INSERT INTO posts_2025_05 (platform, external_id, author_id, text, posted_at)
       SELECT platform, external_id || '-copy', author_id, text, posted_at FROM posts_2025_05 LIMIT 1`,
    `TRUNCATE posts_2025_03`,
    `TRUNCATE posts CASCADE`,
    `DELETE FROM post_keys WHERE id IN (SELECT id FROM post_keys LIMIT 1)`,
    `INSERT INTO post_keys (platform, external_id, id, posted_at) VALUES ('x', 'nowhere', -1, now())`,
    `UPDATE profiles SET followers = followers + 1`,
    `INSERT INTO profiles (platform, external_id, handle, display_name) VALUES ('x', 'hand', 'hand', 'Hand')`,
    `DELETE FROM profiles WHERE NOT EXISTS (SELECT FROM posts p WHERE p.author_id = profiles.id)`,
  ];

  it.each(refused)(
    'refuses %s, leaving posts, their keys and the version as they were',
    async (statement) => {
      const before = { checksum: await corpusChecksum(pool), version: await version() };
      await expect(pool.query(statement)).rejects.toThrow(/outside the corpus's change path/);
      expect(await corpusChecksum(pool)).toEqual(before.checksum);
      expect(await version()).toBe(before.version);
      expect(await keyMismatches()).toBe(0);
    },
  );

  it('guards a month made after the migration too', async () => {
    await pool.query(`SELECT posts_partition_ensure('2027-03-10')`);
    await expect(
      pool.query(`INSERT INTO posts_2027_03 (platform, external_id, author_id, text, posted_at)
        SELECT platform, 'later', author_id, text, '2027-03-10' FROM posts LIMIT 1`),
    ).rejects.toThrow(/outside the corpus's change path/);
  });

  it('lets the change path write, and its mark ends with its transaction', async () => {
    const before = await version();
    await pool.query(`SELECT corpus_update_posts('platform = ''x''', 'likes = likes + 1000')`);
    expect(await version()).toBeGreaterThan(before);
    expect(await keyMismatches()).toBe(0);

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT corpus_changes_begin()');
      await client.query(
        `UPDATE profiles SET bio = 'changed in the path' WHERE id = (SELECT min(id) FROM profiles)`,
      );
      await client.query('COMMIT');
      await expect(client.query(`UPDATE profiles SET bio = 'after it'`)).rejects.toThrow(
        /outside the corpus's change path/,
      );
    } finally {
      client.release();
    }
  });
});

describe('npm run corpus:check', () => {
  it('finds nothing to report in a corpus written through the change path', async () => {
    const run = await corpusCheck();
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/The external keys equal a recount of the posts \(post_keys 1,500 rows\)/);
    expect(run.stdout).toMatch(/analytics store: The analytics store equals PostgreSQL/);
    expect(run.code).toBe(0);
  }, 120_000);

  it('names what a bypass of the guard broke, and --repair makes it exact', async () => {
    // What a superuser's session could still do: the guard stands aside for a session that claims the mark.
    const client = await pool.connect();
    try {
      await client.query(`SET murmur.corpus_writer = 'on'`);
      await client.query(`UPDATE posts SET likes = likes + 1000 WHERE platform = 'x'`);
      await client.query(`DELETE FROM posts WHERE id IN (SELECT id FROM posts WHERE platform = 'x' LIMIT 4)`);
      await client.query('RESET murmur.corpus_writer');
    } finally {
      client.release();
    }
    expect(await keyMismatches()).toBe(4);

    const check = await corpusCheck();
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('post_keys: 4 rows differ');
    // The posts changed and deleted without the outbox: the store still holds them as they were.
    expect(check.stdout).toMatch(/analytics store: .*likes [\d,]+ in the store, [\d,]+ in PostgreSQL/);
    expect(check.stdout).toMatch(/npm run corpus:check -- --repair/);

    const before = { checksum: await corpusChecksum(pool), version: await version() };
    const repair = await corpusCheck('--repair');
    expect(repair.stderr).toBe('');
    expect(repair.code).toBe(0);
    expect(repair.stdout).toMatch(/Repaired: the external keys were rebuilt/);
    expect(await keyMismatches()).toBe(0);
    // The posts are what they were; cached answers computed from the broken corpus are invalid.
    expect(await corpusChecksum(pool)).toEqual(before.checksum);
    expect(await version()).toBeGreaterThan(before.version);

    const again = await corpusCheck();
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/The external keys equal a recount of the posts/);
    expect(again.stdout).toMatch(/analytics store: The analytics store equals PostgreSQL/);
  }, 240_000);
});
