// Mastodon's hashtag streams for the tracked queries (server/scraping/streams/mastodon-stream.ts, started as the
// server and the worker start it: server/tracking/streams.ts), against a local stand-in of an instance's server-sent
// events: beside the public stream, one stream a hashtag the queries tracked on the instance name; a status both bring
// is read and counted once; with the public stream closed (it wants sign-in) the tracked hashtags still come, a query
// those streams wholly bring has no gap while the others are in one that names what is still collected; the hashtags
// follow an edit of a query; the public stream back, the gap ends.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadCatalogue } from '@server/billing/plans';
import { connect } from '@server/db/database';
import { TRACKING_CHANGED } from '@server/saved-queries/store';
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

beforeAll(async () => {
  [database, standIn] = await Promise.all([
    freshDatabaseUrl().then((url) => connect(url)),
    startMastodonStreamingStandIn(),
  ]);
  source = `mastodon:${standIn.origin}`;
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO workspaces (name) VALUES ('Hashtags') RETURNING id`,
  );
  for (const [name, query] of [
    ['Tags', '#cloudnest OR #Murmur'],
    ['Words', 'outage OR (#cloudnest AND down) NOT #ignored'],
  ] as const) {
    const { rows: saved } = await database.pool.query<{ id: string }>(
      `INSERT INTO saved_queries (workspace_id, name, query, filters) VALUES ($1, $2, $3, '{}'::jsonb) RETURNING id`,
      [rows[0]!.id, name, query],
    );
    ids.set(name, saved[0]!.id);
    await database.pool.query(
      `INSERT INTO saved_query_tracking (saved_query_id, enabled, sources, tracking_since) VALUES ($1, true, $2, now())`,
      [saved[0]!.id, [source]],
    );
    await database.pool.query('INSERT INTO tracking_coverage (saved_query_id, source) VALUES ($1, $2)', [
      saved[0]!.id,
      source,
    ]);
  }
  streams = startTrackedMastodonStreams(database, loadCatalogue(), {
    allowPrivateHosts: true,
    backoff: { baseMs: 50, maxMs: 200 },
    standbyMs: 100,
    flushMs: 30,
    random: () => 1,
    log: (line) => said.push(line),
  });
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

const events = async () =>
  (
    await database.pool.query<{ events: number }>('SELECT events::int FROM stream_cursors WHERE name = $1', [
      `mastodon-stream:${standIn.origin}`,
    ])
  ).rows[0]?.events ?? 0;

const gapOf = async (name: string) =>
  (
    await database.pool.query<{ gap_reason: string | null; gap_message: string | null }>(
      'SELECT gap_reason, gap_message FROM tracking_coverage WHERE saved_query_id = $1 AND source = $2',
      [ids.get(name), source],
    )
  ).rows[0]!;

it('streams the public timeline and each tracked hashtag (not one under NOT), and reads a status both bring once', async () => {
  await expect.poll(() => standIn.streams, { timeout: 10_000 }).toEqual(['#cloudnest', '#murmur', 'public']);
  const before = await events();
  standIn.push('update', streamedStatus('201', 'release day', new Date(), ['CloudNest']));
  await expect.poll(stored, { timeout: 5_000 }).toEqual(['release day']);
  await expect.poll(events, { timeout: 5_000 }).toBe(before + 1);
  // The second copy (the hashtag stream's) was not read: one event, one post counted for the query.
  await new Promise((done) => setTimeout(done, 200));
  expect(await events()).toBe(before + 1);
  const { rows } = await database.pool.query<{ posts: number }>(
    'SELECT sum(posts)::int AS posts FROM tracking_coverage_days WHERE saved_query_id = $1',
    [ids.get('Tags')],
  );
  expect(rows[0]!.posts).toBe(1);
});

it('with the public stream closed, still collects the tracked hashtags; only the queries they do not wholly bring are in a gap', async () => {
  standIn.refusePublicWith(401);
  await expect.poll(async () => (await gapOf('Words')).gap_reason, { timeout: 5_000 }).toBe('unreachable');
  expect((await gapOf('Words')).gap_message).toMatch(
    /public stream dropped at \d\d:\d\d UTC; until it is back only posts tagged #cloudnest, #murmur are collected/,
  );
  expect(await gapOf('Tags')).toEqual({ gap_reason: null, gap_message: null });
  await expect
    .poll(() => said.some((line) => line.includes(`${new URL(standIn.origin).host} closed (HTTP 401)`)))
    .toBe(true);

  standIn.push(
    'update',
    streamedStatus('202', 'murmur tagged while public is closed', new Date(), ['murmur']),
  );
  standIn.push('update', streamedStatus('203', 'an outage nobody tagged'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('murmur tagged while public is closed');
  expect(await stored()).not.toContain('an outage nobody tagged');
  // A post over a hashtag stream does not end the gap of a query the public stream is missing for, though it matches.
  standIn.push('update', streamedStatus('206', 'cloudnest is down', new Date(), ['cloudnest']));
  await expect.poll(stored, { timeout: 5_000 }).toContain('cloudnest is down');
  const { rows } = await database.pool.query<{ posts: number }>(
    'SELECT sum(posts)::int AS posts FROM tracking_coverage_days WHERE saved_query_id = $1',
    [ids.get('Words')],
  );
  expect(rows[0]!.posts).toBe(1);
  expect((await gapOf('Words')).gap_reason).toBe('unreachable');
});

it('follows an edit of a query: its hashtags streamed from then on', async () => {
  await database.pool.query(`UPDATE saved_queries SET query = '#cloudnest OR #launch' WHERE id = $1`, [
    ids.get('Tags'),
  ]);
  await database.pool.query('SELECT pg_notify($1, $2)', [TRACKING_CHANGED, ids.get('Tags')]);
  await expect.poll(() => standIn.streams, { timeout: 5_000 }).toEqual(['#cloudnest', '#launch']);
  expect(said.some((line) => line.endsWith("'s hashtag streams now #cloudnest #launch."))).toBe(true);
  standIn.push('update', streamedStatus('204', 'launch tagged', new Date(), ['launch']));
  await expect.poll(stored, { timeout: 5_000 }).toContain('launch tagged');
  // The gap's sentence says what is collected now.
  await expect
    .poll(async () => (await gapOf('Words')).gap_message, { timeout: 5_000 })
    .toContain('only posts tagged #cloudnest, #launch are collected');
});

it('ends the gap when the public stream is back', async () => {
  standIn.refusePublicWith(undefined);
  await expect.poll(() => standIn.streams, { timeout: 5_000 }).toEqual(['#cloudnest', '#launch', 'public']);
  await expect.poll(async () => (await gapOf('Words')).gap_reason, { timeout: 5_000 }).toBeNull();
  const { rows } = await database.pool.query<{ message: string }>(
    'SELECT message FROM tracking_gaps WHERE saved_query_id = $1',
    [ids.get('Words')],
  );
  expect(rows.map((row) => row.message)).toEqual([expect.stringContaining('#cloudnest, #launch')]);
  standIn.push('update', streamedStatus('205', 'outage again'));
  await expect.poll(stored, { timeout: 5_000 }).toContain('outage again');
});
