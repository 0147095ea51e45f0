// The Mastodon streams' process killed (kill -9) mid-stream and started again: every status committed before the kill
// is still stored, once; what the instance posted while no process streamed is not collected (a server-sent events
// stream cannot resume) and is said as a gap that has ended, from the stream's last commit to its reopening. The
// streams run in a process of their own (test/support/mastodon-stream-child.ts) against a local stand-in of an
// instance's streaming API (test/support/mastodon-streaming-stand-in.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { readTracking } from '@server/tracking/store';
import {
  startMastodonStreamingStandIn,
  streamedStatus,
  type MastodonStreamingStandIn,
} from '@test/support/mastodon-streaming-stand-in';
import { freshDatabaseUrl } from '@test/support/server-harness';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test/support/mastodon-stream-child.ts');

let database: Awaited<ReturnType<typeof connect>>;
let url: string;
let standIn: MastodonStreamingStandIn;
let queryId: string;
let source: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  url = await freshDatabaseUrl();
  [database, standIn] = await Promise.all([connect(url), startMastodonStreamingStandIn()]);
  source = `mastodon:${standIn.origin}`;
  const { rows } = await database.pool.query<{ id: string }>(
    `WITH w AS (INSERT INTO workspaces (name) VALUES ('Crash') RETURNING id)
     INSERT INTO saved_queries (workspace_id, name, query, filters) SELECT id, 'Cloudnest', 'cloudnest', '{}'::jsonb
     FROM w RETURNING id`,
  );
  queryId = rows[0]!.id;
  await database.pool.query(
    `INSERT INTO saved_query_tracking (saved_query_id, enabled, sources, tracking_since) VALUES ($1, true, $2, now())`,
    [queryId, [source]],
  );
  await database.pool.query('INSERT INTO tracking_coverage (saved_query_id, source) VALUES ($1, $2)', [
    queryId,
    source,
  ]);
});

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await standIn?.close();
  await database?.close();
});

async function runStreams() {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  for (;;) {
    const { value, done } = await lines.next();
    if (done) throw new Error('the streams ended before they started');
    if (String(value) === '@@ started') return child;
  }
}

const stored = async () =>
  (
    await database.pool.query<{ text: string }>(
      `SELECT text FROM posts WHERE platform = 'mastodon' ORDER BY text`,
    )
  ).rows.map((row) => row.text);

/** Statuses n..n+count-1, every other one matching. */
const push = (from: number, count: number) => {
  for (let i = from; i < from + count; i++)
    standIn.push('update', streamedStatus(String(i), i % 2 === 0 ? `cloudnest ${i}` : `other ${i}`));
};

it(
  'keeps what was committed, once, and says the time no process streamed as an ended gap',
  { timeout: 60_000 },
  async () => {
    const first = await runStreams();
    await expect.poll(() => standIn.open, { timeout: 20_000 }).toBe(1);
    push(100, 40);
    await expect.poll(async () => (await stored()).length, { timeout: 10_000 }).toBe(20);
    // More on the way, then killed without warning.
    push(140, 40);
    first.kill('SIGKILL');
    const killed = Date.now();
    await expect.poll(() => standIn.open, { timeout: 10_000 }).toBe(0);
    const afterKill = await stored();
    expect(afterKill.length).toBeGreaterThanOrEqual(20);
    // Posted while no process streams: not collected.
    push(200, 10);
    await new Promise((done) => setTimeout(done, 1_100));

    await runStreams();
    await expect.poll(() => standIn.open, { timeout: 20_000 }).toBe(1);
    const reopened = Date.now();
    push(300, 10);
    await expect.poll(stored, { timeout: 10_000 }).toContain('cloudnest 308');
    const all = await stored();
    // Nothing committed was lost, nothing is doubled, and nothing posted while down was collected.
    expect(all).toEqual(expect.arrayContaining(afterKill));
    expect(new Set(all).size).toBe(all.length);
    expect(all.filter((text) => /^cloudnest 2\d\d$/.test(text))).toEqual([]);
    expect(all.filter((text) => text.startsWith('other'))).toEqual([]);

    const coverage = (await readTracking(database.db, queryId)).coverage.find((c) => c.source === source)!;
    expect(coverage.gap).toBeNull();
    expect(coverage.closed_gaps).toEqual([
      expect.objectContaining({
        reason: 'unreachable',
        message: expect.stringMatching(
          /stream was not running from \d\d:\d\d to \d\d:\d\d UTC; what it posted then is not collected/,
        ),
      }),
    ]);
    const gap = coverage.closed_gaps![0]!;
    expect(gap.since).toBeLessThanOrEqual(Math.floor(killed / 1000));
    expect(gap.ended).toBeGreaterThanOrEqual(Math.floor(killed / 1000) + 1);
    expect(gap.ended).toBeLessThanOrEqual(Math.ceil(reopened / 1000));
  },
);
