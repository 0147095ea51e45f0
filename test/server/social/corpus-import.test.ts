// The importer against a real PostgreSQL: good rows in, bad rows reported by line and reason, idempotent re-import,
// CSV, and the script's exit codes.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connect, ensureDatabase } from '@server/db/database';
import { poolOf } from '@server/social/corpus/copy';
import { importCorpus, type RejectedRow } from '@server/social/corpus/import/run';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const base = {
  platform: 'x',
  author_external_id: 'a-1',
  author_handle: '@hana_bakes',
  author_followers: 940_000,
  author_verified: true,
  posted_at: '2025-05-01T09:30:00+09:00',
};
const good = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    ...base,
    external_id: id,
    text: `I love this matcha tiramisu! #MatchaTiramisu ${id}`,
    ...extra,
  });

/** Lines 1–10; 1, 4 and 9 are good. */
function mixedFile(): Buffer {
  const lines = [
    good('p1', {
      likes: 10,
      views: 500,
      text: 'Great recipe 😍 #MatchaTiramisu @Nova https://www.bakewithhana.com/r/1',
    }),
    '{"platform": "x", "external_id": ',
    JSON.stringify({ ...base, text: 'no id' }),
    good('p4', { language: 'en' }),
    JSON.stringify({ ...base, external_id: 'p5', text: 'wrong type', likes: '12' }),
    JSON.stringify({ ...base, external_id: 'p6', text: 'unknown platform', platform: 'myspace' }),
    JSON.stringify({ ...base, external_id: 'p7', text: 'bad date', posted_at: '2025-13-01T00:00:00Z' }),
  ];
  return Buffer.concat([
    Buffer.from(`${lines.join('\n')}\n`),
    Buffer.from(
      '{"platform":"x","external_id":"p8","author_external_id":"a-1","author_handle":"h","text":"caf',
    ),
    Buffer.from([0xe9]),
    Buffer.from('","posted_at":"2025-05-01T00:00:00Z"}\n'),
    Buffer.from(
      `${good('p9', { platform: 'instagram', author_external_id: 'k-1', author_handle: 'mina', text: '새 폰 정말 최고예요! #노바X' })}\n`,
    ),
    Buffer.from(`${JSON.stringify({ ...base, external_id: 'p10', text: 'extra', mood: 'happy' })}\n`),
  ]);
}

let server: TestServer;
let pool: pg.Pool;
let dir: string;

beforeAll(async () => {
  server = await createTestServer();
  pool = poolOf(server.db);
  dir = mkdtempSync(join(tmpdir(), 'murmur-import-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(name: string, content: string | Buffer, batchSize = 2) {
  const path = join(dir, name);
  writeFileSync(path, content);
  const rejected: RejectedRow[] = [];
  const summary = await importCorpus(pool, path, { onRejected: (row) => rejected.push(row), batchSize });
  return { summary, rejected: rejected.sort((a, b) => a.line - b.line) };
}

describe('corpus import (PostgreSQL)', () => {
  it('imports the good rows and reports each bad row with its line and reason', async () => {
    const { summary, rejected } = await run('mixed.ndjson', mixedFile());
    expect(summary).toMatchObject({ rows: 10, inserted: 3, updated: 0, rejected: 7 });
    expect(rejected.map((r) => [r.line, r.reason])).toEqual([
      [2, expect.stringMatching(/^invalid JSON/)],
      [3, 'external_id: required'],
      [5, 'likes: expected number, got "12"'],
      [
        6,
        'platform: must be one of x, instagram, tiktok, youtube, facebook, reddit, mastodon, bluesky, rss, hackernews (got "myspace")',
      ],
      [7, expect.stringMatching(/^posted_at: must be an ISO 8601 date-time with an offset/)],
      [8, expect.stringMatching(/^not valid UTF-8: byte 0xE9/)],
      [10, 'unknown field "mood"'],
    ]);
    const { rows } = await pool.query(
      `SELECT p.external_id, p.hashtags, p.mentions, p.domains, p.language, p.sentiment_label, p.engagement,
              p.posted_at, a.handle, a.followers
         FROM posts p JOIN profiles a ON a.id = p.author_id ORDER BY p.external_id`,
    );
    expect(rows.map((r) => r.external_id)).toEqual(['p1', 'p4', 'p9']);
    expect(rows[0]).toMatchObject({
      hashtags: ['matchatiramisu'],
      mentions: ['nova'],
      domains: ['bakewithhana.com'],
      sentiment_label: 'positive',
      engagement: 10,
      handle: 'hana_bakes',
      followers: 940_000,
    });
    expect(rows[0].posted_at.toISOString()).toBe('2025-05-01T00:30:00.000Z');
    expect(rows[2]).toMatchObject({ language: 'ko', hashtags: ['노바x'], sentiment_label: 'positive' });
  });

  it('is idempotent: a second import changes nothing; a newer file updates counts', async () => {
    const before = await pool.query(
      `SELECT count(*)::int AS posts, (SELECT count(*)::int FROM profiles) AS profiles FROM posts`,
    );
    const again = await run('mixed.ndjson', mixedFile());
    expect(again.summary).toMatchObject({ inserted: 0, updated: 0, unchanged: 3, rejected: 7 });

    // The author's fields come from each row; the file's last row for an author wins (here p1's).
    const newer = [
      good('p4'),
      good('p1', {
        likes: 25,
        views: 900,
        author_followers: 950_000,
        text: 'Great recipe 😍 #MatchaTiramisu @Nova https://www.bakewithhana.com/r/1',
      }),
    ];
    const update = await run('newer.ndjson', `${newer.join('\n')}\n`);
    expect(update.summary).toMatchObject({ inserted: 0, updated: 1, unchanged: 1, rejected: 0 });
    const after = await pool.query(
      `SELECT count(*)::int AS posts, (SELECT count(*)::int FROM profiles) AS profiles FROM posts`,
    );
    expect(after.rows[0]).toEqual(before.rows[0]);
    const { rows } = await pool.query(
      `SELECT p.likes, p.views, p.language, a.followers FROM posts p JOIN profiles a ON a.id = p.author_id
        WHERE p.external_id = 'p1'`,
    );
    expect(rows[0]).toMatchObject({ likes: 25, views: '900', followers: 950_000 });
    // Fields a row leaves out keep their value: p4's language stays 'en'.
    const p4 = await pool.query(`SELECT language FROM posts WHERE external_id = 'p4'`);
    expect(p4.rows[0].language).toBe('en');
  });

  it('keeps every good row of a batch PostgreSQL refuses, and rejects the rows it refused', async () => {
    // Each count is valid alone, but likes + comments overflows the stored engagement (an integer): PostgreSQL, not
    // the validation, refuses those rows, so their batch is split until they are alone.
    const overflow = { likes: 2_147_483_647, comments: 1 };
    const lines = Array.from({ length: 20 }, (_, i) =>
      good(`split-${i + 1}`, [3, 13, 14].includes(i + 1) ? overflow : { likes: i }),
    );
    const { summary, rejected } = await run('split.ndjson', `${lines.join('\n')}\n`, 8);
    expect(summary).toMatchObject({ rows: 20, inserted: 17, rejected: 3 });
    expect(rejected.map((r) => [r.line, r.reason])).toEqual(
      [3, 13, 14].map((line) => [line, expect.stringMatching(/^could not be stored: integer out of range/)]),
    );
    const { rows } = await pool.query<{ external_id: string }>(
      `SELECT external_id FROM posts WHERE external_id LIKE 'split-%'`,
    );
    expect(rows.map((r) => Number(r.external_id.slice(6))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1).filter((n) => ![3, 13, 14].includes(n)),
    );
  });

  it('imports CSV, with quoted newlines and tag lists, rejecting bad records by line', async () => {
    const csv =
      'platform,external_id,author_external_id,author_handle,author_verified,text,posted_at,likes,hashtags\n' +
      'reddit,c1,r-1,carla,no,"Line one\nline two, ""quoted""",2025-05-02T10:00:00-03:00,4,"Baking, dessert"\n' +
      'reddit,c2,r-1,carla,no,hello,2025-05-02T10:00:00Z,many,\n' +
      'reddit,c3,r-1,carla,yes,¡Me encanta!,2025-05-02T11:00:00Z,,\n';
    const { summary, rejected } = await run('posts.csv', csv);
    expect(summary).toMatchObject({ rows: 3, inserted: 2, rejected: 1 });
    expect(rejected).toEqual([
      { line: 4, reason: 'likes: expected number, got "many"', raw: expect.any(String) },
    ]);
    const { rows } = await pool.query(`SELECT text, hashtags, likes FROM posts WHERE external_id = 'c1'`);
    expect(rows[0]).toEqual({
      text: 'Line one\nline two, "quoted"',
      hashtags: ['baking', 'dessert'],
      likes: 4,
    });
  });
});

describe('npm run corpus:import exit codes', () => {
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const name = `test_${randomBytes(6).toString('hex')}`;
    const url = new URL(inject('pgAdminUrl'));
    await ensureDatabase(url.toString(), name);
    url.pathname = `/${name}`;
    // Migrate once here: the scripts below run in parallel, and migrations are not safe to run concurrently.
    await (await connect(url.toString())).close();
    env = { ...process.env, DATABASE_URL: url.toString(), APP_ENV: 'qa', DEV_OIDC: 'false' };
  });

  const script = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/corpus-import.ts', ...args], {
        cwd: ROOT,
        env,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => done({ code, stdout, stderr }));
    });

  it('0 when every row is imported, 2 when some are rejected, 1 when the file cannot be read', async () => {
    writeFileSync(join(dir, 'ok.ndjson'), `${good('s1')}\n${good('s2')}\n`);
    writeFileSync(join(dir, 'mixed.ndjson'), mixedFile());
    writeFileSync(join(dir, 'header.csv'), 'platform,colour\nx,red\n');
    const errors = join(dir, 'errors.ndjson');
    const [ok, mixed, missing, header] = await Promise.all([
      script(join(dir, 'ok.ndjson')),
      script(join(dir, 'mixed.ndjson'), '--errors', errors),
      script(join(dir, 'missing.ndjson')),
      script(join(dir, 'header.csv')),
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/2 posts inserted/);
    expect(mixed.code, mixed.stderr).toBe(2);
    expect(mixed.stderr).toMatch(/^line 2: invalid JSON/m);
    expect(mixed.stderr).toMatch(/Rejected rows:\n {2}line 2: /);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Cannot read .*missing\.ndjson/);
    expect(header.code).toBe(1);
    expect(header.stderr).toMatch(/Unknown CSV column "colour"/);
  }, 60_000);
});
