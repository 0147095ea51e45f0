// Mastodon's streaming API for the tracked queries (server/scraping/streams/mastodon-stream.ts, started as the server
// and the worker start it: server/tracking/streams.ts), against a local stand-in of an instance's server-sent events:
// the statuses a tracked query matches are stored and counted in its coverage; a malformed event is refused with its
// reason while the stream goes on; a dropped stream is a gap in coverage (it cannot resume) from the drop until it is
// open again, reconnecting with a growing backoff meanwhile; stopped and started again, nothing stored is lost or
// doubled.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadCatalogue } from '@server/billing/plans';
import { connect } from '@server/db/database';
import { readTracking } from '@server/tracking/store';
import { startTrackedMastodonStreams } from '@server/tracking/streams';
import {
  startMastodonStreamingStandIn,
  streamedStatus,
  type MastodonStreamingStandIn,
} from '@test/support/mastodon-streaming-stand-in';
import { freshDatabaseUrl } from '@test/support/server-harness';

let database: Awaited<ReturnType<typeof connect>>;
let standIn: MastodonStreamingStandIn;
let source: string;
const ids = new Map<string, string>();
const said: string[] = [];
let streams: { stop(): Promise<void> } | undefined;

const start = () =>
  startTrackedMastodonStreams(database, loadCatalogue(), {
    allowPrivateHosts: true,
    backoff: { baseMs: 100, maxMs: 800 },
    standbyMs: 100,
    flushMs: 50,
    random: () => 1,
    log: (line) => said.push(line),
  });

beforeAll(async () => {
  [database, standIn] = await Promise.all([
    freshDatabaseUrl().then((url) => connect(url)),
    startMastodonStreamingStandIn(),
  ]);
  source = `mastodon:${standIn.origin}`;
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO workspaces (name) VALUES ('Streaming') RETURNING id`,
  );
  for (const [name, query, sources] of [
    ['Cloudnest', 'cloudnest', [source]],
    ['On Bluesky only', 'lunch', ['bluesky']],
  ] as const) {
    const { rows: saved } = await database.pool.query<{ id: string }>(
      `INSERT INTO saved_queries (workspace_id, name, query, filters) VALUES ($1, $2, $3, '{}'::jsonb) RETURNING id`,
      [rows[0]!.id, name, query],
    );
    ids.set(name, saved[0]!.id);
    await database.pool.query(
      `INSERT INTO saved_query_tracking (saved_query_id, enabled, sources, tracking_since) VALUES ($1, true, $2, now())`,
      [saved[0]!.id, sources],
    );
    for (const key of sources)
      await database.pool.query('INSERT INTO tracking_coverage (saved_query_id, source) VALUES ($1, $2)', [
        saved[0]!.id,
        key,
      ]);
  }
  streams = start();
});

afterAll(async () => {
  await streams?.stop();
  await standIn?.close();
  await database?.close();
});

const stored = async () =>
  (
    await database.pool.query<{ text: string }>(
      `SELECT text FROM posts WHERE platform = 'mastodon' ORDER BY text`,
    )
  ).rows.map((row) => row.text);

const coverage = async () => {
  const { rows } = await database.pool.query<{
    gap_reason: string | null;
    gap_message: string | null;
    gap_since: Date | null;
    posts: number | null;
  }>(
    `SELECT c.gap_reason, c.gap_message, c.gap_since,
       (SELECT sum(posts)::int FROM tracking_coverage_days d WHERE d.saved_query_id = c.saved_query_id
        AND d.source = c.source) AS posts
     FROM tracking_coverage c WHERE c.saved_query_id = $1 AND c.source = $2`,
    [ids.get('Cloudnest'), source],
  );
  return rows[0]!;
};

const refusedCount = async () =>
  (
    await database.pool.query<{ refused: number }>(
      'SELECT refused::int FROM stream_cursors WHERE name = $1',
      [`mastodon-stream:${standIn.origin}`],
    )
  ).rows[0]?.refused;

it('stores the statuses a query tracked on the instance matches, and counts them in its coverage', async () => {
  await expect.poll(() => standIn.open, { timeout: 10_000 }).toBe(1);
  standIn.push('update', streamedStatus('101', 'cloudnest is down again'));
  standIn.push('update', streamedStatus('102', 'lunch was good'));
  standIn.push('update', streamedStatus('103', 'Cloudnest dashboards are back'));
  await expect
    .poll(stored, { timeout: 5_000 })
    .toEqual(['Cloudnest dashboards are back', 'cloudnest is down again']);
  await expect.poll(async () => (await coverage()).posts, { timeout: 5_000 }).toBe(2);
  expect((await coverage()).gap_reason).toBeNull();
});

it("takes a deleted status out of the corpus (by the instance's id), and a delete of one never stored is a no-op", async () => {
  const row = async () =>
    (
      await database.pool.query<{ events: number; removed: number }>(
        'SELECT events::int, removed::int FROM stream_cursors WHERE name = $1',
        [`mastodon-stream:${standIn.origin}`],
      )
    ).rows[0];
  standIn.push('update', streamedStatus('150', 'cloudnest post to be deleted'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('cloudnest post to be deleted');
  const before = (await row())!;
  // The analytics store follows the corpus's change path: with a store registered, the removal reaches its outbox.
  const { rows: keys } = await database.pool.query<{ id: string }>(
    `SELECT id::text FROM post_keys WHERE platform = 'mastodon' AND external_id = $1`,
    ['https://stand-in.example/users/ana/statuses/150'],
  );
  await database.pool.query('INSERT INTO analytics_consumer DEFAULT VALUES');
  // One never stored (it matched no query), one unknown, then the stored one.
  standIn.push('delete', '102');
  standIn.push('delete', '999999');
  standIn.push('delete', '150');
  await expect.poll(stored, { timeout: 5_000 }).not.toContain('cloudnest post to be deleted');
  await expect
    .poll(row, { timeout: 5_000 })
    .toEqual({ events: before.events + 3, removed: before.removed + 1 });
  expect(await stored()).toEqual(['Cloudnest dashboards are back', 'cloudnest is down again']);
  const { rows } = await database.pool.query(
    `SELECT 1 FROM mastodon_status_ids WHERE instance = $1 AND status_id = '150'`,
    [standIn.origin],
  );
  expect(rows).toEqual([]);
  const { rows: outbox } = await database.pool.query<{ post_ids: string[] }>(
    'SELECT post_ids::text[] FROM analytics_outbox',
  );
  expect(outbox.flatMap((entry) => entry.post_ids)).toEqual([keys[0]!.id]);
  // Unregistered again: the later writes append nothing (the outbox's rows stay, as the guard wants).
  await database.pool.query('DELETE FROM analytics_consumer');
});

it('refuses a malformed event with its reason and goes on', async () => {
  standIn.push('update', '{"id": "104", "content": ');
  standIn.push(
    'update',
    JSON.stringify({ id: '105', uri: 'https://stand-in.example/s/105', content: 'cloudnest' }),
  );
  standIn.push('delete', 'not an id!');
  standIn.push('update', streamedStatus('106', 'cloudnest after the noise'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('cloudnest after the noise');
  await expect.poll(refusedCount, { timeout: 5_000 }).toBe(3);
  expect(said.some((line) => line.includes('(delete event): the payload must be a status id'))).toBe(true);
  expect(said.some((line) => line.includes('refused an event') && line.includes('not JSON'))).toBe(true);
  expect(said.some((line) => line.includes('the status has no account'))).toBe(true);
});

it('records a drop as a gap, reconnects with a growing backoff, and closes the gap when the stream is back', async () => {
  const before = standIn.connections;
  const mark = said.length;
  const dropped = Date.now();
  standIn.refuseWith(503);
  standIn.drop();
  await expect.poll(async () => (await coverage()).gap_reason, { timeout: 5_000 }).toBe('unreachable');
  const gap = await coverage();
  expect(gap.gap_message).toMatch(
    /stream dropped at \d\d:\d\d UTC; .* not collected \(a Mastodon stream cannot resume\)/,
  );
  expect(gap.gap_since!.getTime()).toBeGreaterThanOrEqual(dropped - 1_000);
  // Refused while the instance is down: each wait twice the last (random() = 1: the whole ceiling), up to the cap.
  const waits = () =>
    said
      .slice(mark)
      .filter((line) => line.includes('connecting again in'))
      .map((line) => Number(/in (\d+) ms/.exec(line)![1]));
  await expect.poll(() => waits().length, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
  expect(waits().slice(0, 5)).toEqual([100, 200, 400, 800, 800]);
  expect(said.slice(mark).filter((line) => line.includes('(HTTP 503)')).length).toBeGreaterThanOrEqual(4);
  // The gap keeps its start while the stream stays down.
  expect((await coverage()).gap_since!.getTime()).toBe(gap.gap_since!.getTime());

  standIn.refuseWith(undefined);
  await expect.poll(() => standIn.connections, { timeout: 10_000 }).toBe(before + 1);
  await expect.poll(async () => (await coverage()).gap_reason, { timeout: 5_000 }).toBeNull();
  // The drop is kept once closed: its span is what was not collected.
  const tracking = await readTracking(database.db, ids.get('Cloudnest')!);
  const kept = tracking.coverage.find((c) => c.source === source)!.closed_gaps!;
  expect(kept).toEqual([
    {
      reason: 'unreachable',
      message: gap.gap_message,
      since: Math.floor(gap.gap_since!.getTime() / 1000),
      ended: expect.any(Number),
    },
  ]);
  expect(kept[0]!.ended - kept[0]!.since).toBeGreaterThanOrEqual(1);
  standIn.push('update', streamedStatus('107', 'cloudnest after the drop'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('cloudnest after the drop');
});

it('loses nothing stored when stopped and started again, and stores a status read twice once', async () => {
  const before = await stored();
  await streams!.stop();
  // A status id kept for a post no longer held (retention dropped it): forgotten at the start.
  await database.pool.query(
    `INSERT INTO mastodon_status_ids (instance, status_id, external_id) VALUES ($1, '90', 'https://gone.example/s/90')`,
    [standIn.origin],
  );
  streams = start();
  await expect
    .poll(
      async () =>
        (
          await database.pool.query<{ status_id: string }>(
            'SELECT status_id FROM mastodon_status_ids WHERE instance = $1 ORDER BY status_id',
            [standIn.origin],
          )
        ).rows.map((row) => row.status_id),
      { timeout: 5_000 },
    )
    .toEqual(['101', '103', '106', '107']);
  await expect.poll(() => standIn.open, { timeout: 10_000 }).toBe(1);
  standIn.push('update', streamedStatus('107', 'cloudnest after the drop'));
  standIn.push('update', streamedStatus('108', 'cloudnest after the restart'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('cloudnest after the restart');
  expect(await stored()).toEqual([...before, 'cloudnest after the restart'].sort());
});
