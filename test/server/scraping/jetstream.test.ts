// The Bluesky stream (server/scraping/streams/jetstream.ts) against a local Jetstream (test/support/jetstream-stand-in.ts)
// on a fresh database: only posts that match a tracked query land, with the Bluesky connector's keys; a deleted post
// leaves; a malformed event is refused with its reason and the stream goes on; a dropped connection is opened again
// from the cursor minus the overlap, and ends with every post once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { startJetstream, type JetstreamConsumer } from '@server/scraping/streams/jetstream';
import {
  deleteEvent,
  postEvent,
  startJetstreamStandIn,
  type JetstreamStandIn,
  type ScriptedEvent,
} from '@test/support/jetstream-stand-in';
import { waitFor } from '@test/support/worker-process';
import { freshDatabaseUrl } from '@test/support/server-harness';

let database: Awaited<ReturnType<typeof connect>>;
let standIn: JetstreamStandIn | undefined;
let consumer: JetstreamConsumer | undefined;

/** A fixed start, in microseconds, and a DID per author. */
const T0 = Date.UTC(2026, 10, 20, 9, 0, 0) * 1_000;
const ALICE = 'did:plc:alice234567abcdefghijklm';
const BOB = 'did:plc:bob234567abcdefghijklmnop';
const uri = (did: string, rkey: string) => `at://${did}/app.bsky.feed.post/${rkey}`;

beforeAll(async () => {
  database = await connect(await freshDatabaseUrl());
});

afterEach(async () => {
  await consumer?.stop();
  await standIn?.close();
  consumer = undefined;
  standIn = undefined;
  await database.pool.query(`SELECT corpus_delete_posts('platform = ''bluesky''')`);
  await database.pool.query('DELETE FROM stream_cursors');
});

afterAll(async () => {
  await database.close();
});

async function blueskyPosts() {
  const { rows } = await database.pool.query<{
    external_id: string;
    text: string;
    handle: string;
    url: string;
  }>(
    `SELECT p.external_id, p.text, a.handle, p.url FROM posts p JOIN profiles a ON a.id = p.author_id
     WHERE p.platform = 'bluesky' ORDER BY p.external_id`,
  );
  return rows;
}

async function cursorRow() {
  const { rows } = await database.pool.query<{
    cursor_us: string;
    events: string;
    imported: string;
    removed: string;
    refused: string;
    last_refusal: string | null;
  }>('SELECT cursor_us::text, events, imported, removed, refused, last_refusal FROM stream_cursors');
  return rows[0];
}

/** Until the stream has committed its last event. */
const caughtUp = (lastUs: number) =>
  waitFor(
    `the stream to commit up to ${lastUs}`,
    async () => ((await cursorRow())?.cursor_us === String(lastUs) ? true : undefined),
    30_000,
  );

const start = async (
  events: ScriptedEvent[],
  drops?: number[],
  log: string[] = [],
  more: Partial<Parameters<typeof startJetstream>[0]> = {},
) => {
  standIn = await startJetstreamStandIn({ events, drops, intervalMs: 2 });
  consumer = await startJetstream({
    pool: database.pool,
    url: standIn.url,
    queries: async () => [
      { id: 'q-cloudnest', text: 'cloudnest OR #cloudnest' },
      { id: 'q-brand', text: '"murmur analytics"' },
    ],
    flushEvents: 7,
    flushMs: 40,
    overlapMs: 1_000,
    backoff: { baseMs: 20, maxMs: 200 },
    log: (line) => log.push(line),
    ...more,
  });
};

describe('the Bluesky stream', () => {
  it('imports the posts that match a tracked query, and only those; a deleted post leaves', async () => {
    const log: string[] = [];
    await start(
      [
        postEvent(T0 + 1, ALICE, '3kaaa', 'CloudNest is down again'),
        postEvent(T0 + 2, BOB, '3kbbb', 'nothing to see here, just lunch'),
        postEvent(T0 + 3, BOB, '3kccc', 'We use Murmur analytics daily', {
          facets: [
            {
              index: { byteStart: 0, byteEnd: 5 },
              features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'Listening' }],
            },
          ],
        }),
        postEvent(T0 + 4, ALICE, '3kddd', 'cloudnest status page says all good'),
        deleteEvent(T0 + 5, ALICE, '3kddd'),
        // Deletes of a post never stored (it matched no query) and of one never seen: nothing to take out.
        deleteEvent(T0 + 5, BOB, '3kbbb'),
        deleteEvent(T0 + 5, BOB, '3kunknown'),
        // Not posts: an identity event and a like, which only move the cursor.
        {
          timeUs: T0 + 6,
          text: JSON.stringify({ did: ALICE, time_us: T0 + 6, kind: 'identity', identity: {} }),
        },
        {
          timeUs: T0 + 7,
          text: JSON.stringify({
            did: BOB,
            time_us: T0 + 7,
            kind: 'commit',
            commit: { operation: 'create', collection: 'app.bsky.feed.like', rkey: '3klike', record: {} },
          }),
        },
        postEvent(T0 + 8, BOB, '3keee', '#CloudNest outage day two'),
      ],
      undefined,
      log,
    );
    await caughtUp(T0 + 8);
    const posts = await blueskyPosts();
    expect(posts.map((post) => post.external_id)).toEqual([
      uri(ALICE, '3kaaa'),
      uri(BOB, '3kccc'),
      uri(BOB, '3keee'),
    ]);
    // The author is known by DID (the stream carries no handle); the link is bsky.app's for that DID.
    expect(posts[0]).toMatchObject({
      text: 'CloudNest is down again',
      handle: ALICE,
      url: `https://bsky.app/profile/${ALICE}/post/3kaaa`,
    });
    const row = await cursorRow();
    expect(row).toMatchObject({
      events: '10',
      imported: '4',
      removed: '1',
      refused: '0',
      last_refusal: null,
    });
    expect(log.filter((line) => line.includes('refused'))).toEqual([]);
  });

  it('takes nothing out for a delete of a post it does not hold, and moves the cursor past it', async () => {
    await start([postEvent(T0 + 1, ALICE, '3khhh', 'cloudnest stays')]);
    await caughtUp(T0 + 1);
    standIn!.push(deleteEvent(T0 + 2, BOB, '3knever'));
    await caughtUp(T0 + 2);
    expect(await cursorRow()).toMatchObject({ events: '2', imported: '1', removed: '0', refused: '0' });
    expect((await blueskyPosts()).map((post) => post.external_id)).toEqual([uri(ALICE, '3khhh')]);
  });

  it('keeps the handle a stored profile has', async () => {
    await start([postEvent(T0 + 1, ALICE, '3kfff', 'cloudnest once more')]);
    await caughtUp(T0 + 1);
    await database.pool.query(
      `SELECT corpus_update_profiles($$external_id = '${ALICE}'$$, $$handle = 'alice.example'$$)`,
    );
    standIn!.push(postEvent(T0 + 2, ALICE, '3kggg', 'cloudnest and again'));
    await caughtUp(T0 + 2);
    expect((await blueskyPosts()).map((post) => post.handle)).toEqual(['alice.example', 'alice.example']);
  });

  it('refuses a malformed event with its reason, and the events after it still land', async () => {
    const log: string[] = [];
    const wrongType = JSON.parse(postEvent(T0 + 3, ALICE, '3kbad', 'x').text) as {
      commit: { record: { text: unknown } };
    };
    wrongType.commit.record.text = 42;
    await start(
      [
        postEvent(T0 + 1, ALICE, '3k001', 'cloudnest before the bad ones'),
        { timeUs: T0 + 2, text: '{"did": "did:plc:x", "time_us": ' },
        { timeUs: T0 + 3, text: JSON.stringify(wrongType) },
        {
          timeUs: T0 + 4,
          text: JSON.stringify({
            did: BOB,
            time_us: T0 + 4,
            kind: 'commit',
            commit: { operation: 'create' },
          }),
        },
        postEvent(T0 + 5, BOB, '3k002', 'cloudnest after the bad ones', { createdAt: 'yesterday' }),
        postEvent(T0 + 6, BOB, '3k003', 'cloudnest after the bad ones'),
      ],
      undefined,
      log,
    );
    await caughtUp(T0 + 6);
    expect((await blueskyPosts()).map((post) => post.external_id)).toEqual([
      uri(ALICE, '3k001'),
      uri(BOB, '3k003'),
    ]);
    const row = await cursorRow();
    expect(row).toMatchObject({ events: '6', imported: '2', refused: '4' });
    expect(row!.last_refusal).toContain('posted_at');
    const said = log.filter((line) => line.startsWith('Bluesky stream: refused an event'));
    expect(said.length).toBeGreaterThan(0);
    expect(said[0]).toContain('not JSON');
    expect(consumer!.status().refused).toBe(4);
  });

  it('keeps unreadable events without a position until one with a position comes: never a cursor of 0', async () => {
    await start([{ timeUs: T0, text: 'not json at all' }]);
    await waitFor(
      'the unreadable event to be read',
      async () => (standIn!.sent === 1 ? true : undefined),
      10_000,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await cursorRow()).toBeUndefined();
    standIn!.push(postEvent(T0 + 1, ALICE, '3kpos', 'cloudnest with a position'));
    await caughtUp(T0 + 1);
    expect(await cursorRow()).toMatchObject({ events: '2', imported: '1', refused: '1' });
  });

  it('opens a dropped connection again from the cursor minus the overlap: nothing lost, nothing doubled', async () => {
    const log: string[] = [];
    const events = Array.from({ length: 60 }, (_, i) =>
      postEvent(
        T0 + (i + 1) * 100_000,
        i % 2 ? ALICE : BOB,
        `3kdrop${String(i).padStart(3, '0')}`,
        `cloudnest ${i}`,
        // One post the importer refuses, inside the first reconnection's overlap: refused once.
        i === 15 ? { createdAt: 'yesterday' } : {},
      ),
    );
    // The first connection drops after 20 events, the second after 25 more (at least; it starts in the overlap).
    await start(events, [20, 25], log);
    await caughtUp(events.at(-1)!.timeUs);
    const posts = await blueskyPosts();
    expect(posts).toHaveLength(59);
    expect(new Set(posts.map((post) => post.external_id)).size).toBe(59);
    expect(await cursorRow()).toMatchObject({ events: '60', imported: '59', refused: '1' });
    expect(consumer!.status().refused).toBe(1);
    const cursors = standIn!.connections.map((query) => query.get('cursor'));
    expect(cursors.length).toBeGreaterThanOrEqual(3);
    expect(cursors[0]).toBeNull();
    // Each later connection asked from a committed position, one second (the overlap) back.
    for (const cursor of cursors.slice(1)) {
      const at = Number(cursor);
      expect(events.some((event) => event.timeUs - 1_000_000 === at)).toBe(true);
    }
    expect(
      standIn!.connections.every((query) => query.get('wantedCollections') === 'app.bsky.feed.post'),
    ).toBe(true);
    expect(log.filter((line) => line.includes('connecting again in')).length).toBeGreaterThanOrEqual(2);
  });

  it('waits longer after each connection that brings nothing (doubling, jittered, capped), and again from the start after one that does', async () => {
    const log: string[] = [];
    // Three connections dropped before any event, then one that brings the post and drops, then one that stays.
    await start([postEvent(T0 + 1, ALICE, '3kback', 'cloudnest after the drops')], [0, 0, 0, 1], log, {
      backoff: { baseMs: 40, maxMs: 100 },
      random: () => 0.5,
    });
    await caughtUp(T0 + 1);
    await waitFor(
      'the fifth connection',
      async () => (standIn!.connections.length === 5 ? true : undefined),
      10_000,
    );
    const waits = log
      .map((line) => /connecting again in (\d+) ms/.exec(line)?.[1])
      .filter((wait) => wait !== undefined)
      .map(Number);
    // Each wait is three quarters of its ceiling (random 0.5): 40, 80, then 100 (the cap); 40 again after the post.
    expect(waits).toEqual([30, 60, 75, 30]);
  });
});
