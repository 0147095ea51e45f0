// The Bluesky stream as the worker runs it: `npm run worker` (server/worker.ts) with SCRAPING_BLUESKY_STREAM=true
// streams from JETSTREAM_URL (here a local Jetstream) and keeps the posts the saved queries tracked on Bluesky match,
// counting them in each query's coverage (server/tracking), their author's handle resolved through the AppView
// (SCRAPING_BLUESKY_URL, here a local stand-in of getProfiles); and however many processes are started, one streams (an
// advisory lock) while the others stand by, taking over when it stops.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { startBlueskyStream } from '@server/scraping/streams/bluesky-stream';
import { startAppViewStandIn } from '@test/support/bluesky-appview-stand-in';
import { postEvent, startJetstreamStandIn } from '@test/support/jetstream-stand-in';
import { waitFor, workerProcesses } from '@test/support/worker-process';
import { freshDatabaseUrl } from '@test/support/server-harness';

const T0 = Date.UTC(2026, 10, 22, 8, 0, 0) * 1_000;
const DID = 'did:plc:worker4567abcdefghijklmn';

let database: Awaited<ReturnType<typeof connect>>;
let url: string;
const workers = workerProcesses();

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await connect(url);
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO workspaces (name) VALUES ('Streaming') RETURNING id`,
  );
  const workspace = rows[0]!.id;
  for (const [name, query, sources] of [
    ['Cloudnest', 'cloudnest', ['bluesky', 'hackernews']],
    ['Lunch, on Hacker News', 'lunch', ['hackernews']],
    ['Murmur', '"murmur analytics"', ['bluesky']],
    ['Untracked', 'slow', null],
  ] as const) {
    const { rows: saved } = await database.pool.query<{ id: string }>(
      `INSERT INTO saved_queries (workspace_id, name, query, filters) VALUES ($1, $2, $3, '{}'::jsonb) RETURNING id`,
      [workspace, name, query],
    );
    if (!sources) continue;
    await database.pool.query(
      `INSERT INTO saved_query_tracking (saved_query_id, enabled, sources, tracking_since) VALUES ($1, true, $2, now())`,
      [saved[0]!.id, sources],
    );
    for (const source of sources)
      await database.pool.query('INSERT INTO tracking_coverage (saved_query_id, source) VALUES ($1, $2)', [
        saved[0]!.id,
        source,
      ]);
  }
});

/** Posts counted per tracked query on Bluesky (their coverage's days), by the query's name. */
const counted = async () =>
  Object.fromEntries(
    (
      await database.pool.query<{ name: string; posts: number }>(
        `SELECT q.name, sum(d.posts)::int AS posts FROM tracking_coverage_days d JOIN saved_queries q ON q.id = d.saved_query_id
         WHERE d.source = 'bluesky' GROUP BY q.name`,
      )
    ).rows.map((row) => [row.name, row.posts]),
  );

afterAll(async () => {
  workers.killAll();
  await database.close();
});

const posts = async () =>
  (
    await database.pool.query<{ text: string }>(
      `SELECT text FROM posts WHERE platform = 'bluesky' ORDER BY text`,
    )
  ).rows.map((row) => row.text);

const committed = (lastUs: number) =>
  waitFor(
    `the stream to commit up to ${lastUs}`,
    async () => {
      const { rows } = await database.pool.query<{ cursor_us: string }>(
        'SELECT cursor_us::text FROM stream_cursors',
      );
      return rows[0]?.cursor_us === String(lastUs) ? true : undefined;
    },
    60_000,
  );

it(
  'streams in npm run worker when SCRAPING_BLUESKY_STREAM is on, for the saved queries tracked on Bluesky',
  { timeout: 120_000 },
  async () => {
    const standIn = await startJetstreamStandIn({
      events: [
        postEvent(T0 + 1, DID, '3kw1', 'cloudnest is slow today'),
        postEvent(T0 + 2, DID, '3kw2', 'lunch was good'),
        postEvent(T0 + 3, DID, '3kw3', 'trying Murmur analytics for the launch'),
      ],
    });
    const appView = await startAppViewStandIn({ [DID]: { handle: 'worker.example' } });
    try {
      const env = {
        SCRAPING_BLUESKY_STREAM: 'true',
        JETSTREAM_URL: standIn.url,
        SCRAPING_BLUESKY_URL: appView.url,
      };
      workers.start(url, env);
      await committed(T0 + 3);
      expect(await posts()).toEqual(['cloudnest is slow today', 'trying Murmur analytics for the launch']);
      expect(await counted()).toEqual({ Cloudnest: 1, Murmur: 1 });
      // The author, first known by DID alone, is shown by handle once the AppView answered.
      await waitFor(
        "the author's handle",
        async () => {
          const { rows } = await database.pool.query<{ handle: string }>(
            'SELECT handle FROM profiles WHERE external_id = $1',
            [DID],
          );
          return rows[0]?.handle === 'worker.example' ? true : undefined;
        },
        30_000,
      );
      expect(appView.calls).toEqual([[DID]]);
      // A second worker stands by: still one connection, and what comes next is imported once.
      const second = workers.start(url, env);
      let said = '';
      second.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
      await waitFor(
        'the second worker to stand by',
        async () =>
          said.includes('Bluesky stream: another process streams; this one stands by.') ? true : undefined,
        60_000,
      );
      standIn.push(postEvent(T0 + 4, DID, '3kw4', 'cloudnest again'));
      await committed(T0 + 4);
      expect(standIn.connections).toHaveLength(1);
      expect(await posts()).toHaveLength(3);
      expect(await counted()).toEqual({ Cloudnest: 2, Murmur: 1 });
    } finally {
      workers.killAll();
      await standIn.close();
      await appView.close();
    }
  },
);

it('lets one process stream at a time; another takes over when it stops', { timeout: 60_000 }, async () => {
  await database.pool.query('DELETE FROM stream_cursors');
  const standIn = await startJetstreamStandIn({
    events: [postEvent(T0 + 10, DID, '3kl1', 'cloudnest first')],
  });
  const options = {
    pool: database.pool,
    url: standIn.url,
    queries: async () => [{ id: 'q', text: 'cloudnest' }],
    standbyMs: 100,
    log: () => {},
  };
  const said: string[] = [];
  const first = startBlueskyStream(options);
  let second: ReturnType<typeof startBlueskyStream> | undefined;
  try {
    await committed(T0 + 10);
    second = startBlueskyStream({ ...options, log: (line) => said.push(line) });
    await waitFor('the second to stand by', async () => (said.length > 0 ? true : undefined), 10_000);
    expect(said).toEqual(['Bluesky stream: another process streams; this one stands by.']);
    expect(standIn.connections).toHaveLength(1);
    await first.stop();
    standIn.push(postEvent(T0 + 11, DID, '3kl2', 'cloudnest second'));
    await committed(T0 + 11);
    expect(standIn.connections).toHaveLength(2);
    expect(Number(standIn.connections[1]!.get('cursor'))).toBe(T0 + 10 - 5_000_000);
    expect(await posts()).toContain('cloudnest second');
  } finally {
    await first.stop();
    await second?.stop();
    await standIn.close();
  }
});

it('is off unless SCRAPING_BLUESKY_STREAM says true, and JETSTREAM_URL must be a WebSocket URL', () => {
  const defaults = loadServerConfig({});
  expect(defaults.SCRAPING_BLUESKY_STREAM).toBe(false);
  expect(defaults.JETSTREAM_URL).toBe('wss://jetstream2.us-east.bsky.network/subscribe');
  expect(loadServerConfig({ SCRAPING_BLUESKY_STREAM: 'true' }).SCRAPING_BLUESKY_STREAM).toBe(true);
  expect(loadServerConfig({ SCRAPING_BLUESKY_STREAM: '' }).SCRAPING_BLUESKY_STREAM).toBe(false);
  expect(() => loadServerConfig({ JETSTREAM_URL: 'https://jetstream.example/subscribe' })).toThrow(
    'JETSTREAM_URL: Must be a ws:// or wss:// URL',
  );
  expect(() => loadServerConfig({ SCRAPING_BLUESKY_STREAM: 'yes' })).toThrow('SCRAPING_BLUESKY_STREAM');
});
