// The handles of the Bluesky stream's authors (server/scraping/streams/bluesky-handles.ts), resolved beside the stream
// (jetstream.ts) against local stand-ins of Jetstream and of the AppView's getProfiles, on a fresh database: a new
// author's posts show @handle once resolved, in calls of at most 25 actors; the stream commits on while the AppView
// fails, and the failed ones are asked again later; an actor the AppView does not know is asked again until it does;
// the author's later posts take the stored handle without asking; a restart takes the profiles still known by DID
// alone; the collectors' address guard holds.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { startHandleResolver, type HandleResolver } from '@server/scraping/streams/bluesky-handles';
import { startJetstream, type JetstreamConsumer } from '@server/scraping/streams/jetstream';
import { startAppViewStandIn, type AppViewStandIn } from '@test/support/bluesky-appview-stand-in';
import {
  postEvent,
  startJetstreamStandIn,
  type JetstreamStandIn,
  type ScriptedEvent,
} from '@test/support/jetstream-stand-in';
import { freshDatabaseUrl } from '@test/support/server-harness';
import { waitFor } from '@test/support/worker-process';

let database: Awaited<ReturnType<typeof connect>>;
let jetstream: JetstreamStandIn | undefined;
let appView: AppViewStandIn | undefined;
let consumer: JetstreamConsumer | undefined;
let resolver: HandleResolver | undefined;

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0) * 1_000;
const did = (name: string) => `did:plc:${name.padEnd(24, 'x')}`;
const ALICE = did('alice');
const BOB = did('bob');
const http = { timeoutMs: 2_000, allowPrivateHosts: true, userAgent: 'MurmurTest/1.0' };

beforeAll(async () => {
  database = await connect(await freshDatabaseUrl());
});

afterEach(async () => {
  await consumer?.stop();
  await resolver?.stop();
  await jetstream?.close();
  await appView?.close();
  consumer = resolver = jetstream = appView = undefined;
  await database.pool.query(`SELECT corpus_delete_posts('platform = ''bluesky''')`);
  await database.pool.query(`SELECT corpus_delete_profiles('platform = ''bluesky''')`);
  await database.pool.query('DELETE FROM stream_cursors');
});

afterAll(async () => {
  await database.close();
});

/** Each stored Bluesky author's handle and display name, by DID. */
async function authors() {
  const { rows } = await database.pool.query<{ external_id: string; handle: string; display_name: string }>(
    `SELECT external_id, handle, display_name FROM profiles WHERE platform = 'bluesky' ORDER BY external_id`,
  );
  return Object.fromEntries(rows.map((row) => [row.external_id, row.handle]));
}

const committed = async () =>
  (await database.pool.query<{ cursor_us: string }>('SELECT cursor_us::text FROM stream_cursors')).rows[0]
    ?.cursor_us;

async function start(
  events: ScriptedEvent[],
  known: Parameters<typeof startAppViewStandIn>[0],
  log: string[] = [],
  guarded = false,
) {
  appView = await startAppViewStandIn(known);
  jetstream = await startJetstreamStandIn({ events, intervalMs: 2 });
  resolver = startHandleResolver({
    pool: database.pool,
    url: appView.url,
    http: { ...http, allowPrivateHosts: !guarded },
    everyMs: 20,
    retryMs: 150,
    maxRetryMs: 600,
    log: (line) => log.push(line),
  });
  consumer = await startJetstream({
    pool: database.pool,
    url: jetstream.url,
    queries: async () => [{ id: 'q', text: 'cloudnest' }],
    onUnresolved: resolver.want,
    flushEvents: 10,
    flushMs: 30,
    log: () => {},
  });
}

describe("the Bluesky stream's authors", () => {
  it('show @handle once resolved, asked at most 25 at a time; the later posts take the stored handle', async () => {
    const many = Array.from({ length: 30 }, (_, i) => did(`author${i}`));
    await start(
      [
        postEvent(T0 + 1, ALICE, '3ka1', 'cloudnest from alice'),
        ...many.map((author, i) => postEvent(T0 + 2 + i, author, `3km${i}`, `cloudnest ${i}`)),
      ],
      {
        [ALICE]: { handle: 'Alice.Example', displayName: 'Alice', followersCount: 12 },
        ...Object.fromEntries(many.map((author, i) => [author, { handle: `author${i}.example` }])),
      },
    );
    await waitFor(
      'every author resolved',
      async () => {
        const handles = Object.values(await authors());
        return handles.length === 31 && handles.every((h) => h.endsWith('.example')) ? true : undefined;
      },
      10_000,
    );
    expect((await authors())[ALICE]).toBe('alice.example');
    const { rows } = await database.pool.query(
      `SELECT display_name, followers FROM profiles WHERE external_id = $1`,
      [ALICE],
    );
    expect(rows[0]).toEqual({ display_name: 'Alice', followers: 12 });
    // The post shows the author's handle (the people and posts views read the profile).
    const { rows: shown } = await database.pool.query<{ handle: string }>(
      `SELECT a.handle FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.external_id = $1`,
      [`at://${ALICE}/app.bsky.feed.post/3ka1`],
    );
    expect(shown[0]!.handle).toBe('alice.example');
    expect(appView!.calls.every((actors) => actors.length >= 1 && actors.length <= 25)).toBe(true);
    expect(new Set(appView!.calls.flat()).size).toBe(31);
    expect(appView!.calls.length).toBeGreaterThanOrEqual(2);

    const asked = appView!.calls.length;
    jetstream!.push(postEvent(T0 + 100, ALICE, '3ka2', 'cloudnest again from alice'));
    await waitFor(
      'the later post',
      async () => ((await committed()) === String(T0 + 100) ? true : undefined),
      10_000,
    );
    const { rows: later } = await database.pool.query<{ handle: string }>(
      `SELECT a.handle FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.external_id = $1`,
      [`at://${ALICE}/app.bsky.feed.post/3ka2`],
    );
    expect(later[0]!.handle).toBe('alice.example');
    await new Promise((done) => setTimeout(done, 100));
    expect(appView!.calls.length).toBe(asked);
  });

  it('never holds the stream up: while the AppView fails the posts commit, and the authors are asked again later', async () => {
    const log: string[] = [];
    await start([postEvent(T0 + 1, ALICE, '3kf1', 'cloudnest while the AppView is down')], {}, log);
    appView!.failNext(2, 503);
    await waitFor(
      'the post committed',
      async () => ((await committed()) === String(T0 + 1) ? true : undefined),
      10_000,
    );
    expect((await authors())[ALICE]).toBe(ALICE);
    await waitFor('two failed calls', async () => (appView!.calls.length >= 2 ? true : undefined), 10_000);
    expect(log.some((line) => line.includes('could not be resolved') && line.includes('503'))).toBe(true);
    // Answered, but the AppView does not know the actor yet: asked again until it does.
    await waitFor('an answered call', async () => (appView!.calls.length >= 3 ? true : undefined), 10_000);
    expect((await authors())[ALICE]).toBe(ALICE);
    appView!.profiles.set(ALICE, { handle: 'alice.example' });
    await waitFor(
      'the handle',
      async () => ((await authors())[ALICE] === 'alice.example' ? true : undefined),
      10_000,
    );
  });

  it('takes at a start the stored profiles still known by DID alone, and refuses a private address unless allowed', async () => {
    const log: string[] = [];
    await start(
      [postEvent(T0 + 1, BOB, '3kb1', 'cloudnest from bob')],
      { [BOB]: { handle: 'bob.example' } },
      log,
      true,
    );
    await waitFor(
      'the post committed',
      async () => ((await committed()) === String(T0 + 1) ? true : undefined),
      10_000,
    );
    await waitFor(
      'the refusal',
      async () => (log.some((line) => line.includes('private or reserved address')) ? true : undefined),
      10_000,
    );
    expect(appView!.calls).toEqual([]);
    expect((await authors())[BOB]).toBe(BOB);
    await resolver!.stop();
    // A new resolver (a restart), allowed to reach the stand-in: it asks for the profile stored by DID alone.
    resolver = startHandleResolver({
      pool: database.pool,
      url: appView!.url,
      http,
      everyMs: 20,
      log: () => {},
    });
    await waitFor(
      'the stored profile resolved',
      async () => ((await authors())[BOB] === 'bob.example' ? true : undefined),
      10_000,
    );
    expect(appView!.calls).toEqual([[BOB]]);
  });
});
