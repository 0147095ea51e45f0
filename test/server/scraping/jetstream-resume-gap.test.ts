// A Bluesky stream stopped longer than Jetstream keeps (issue 54, item 4: no gap is silent): resumed from its cursor,
// the stand-in replays only from later on (its script starts there, as a Jetstream that no longer keeps the cursor's
// time). The span between the cursor and the first event read is kept as an ended gap of the query tracked on Bluesky,
// said on its coverage; the stream goes on with what it reads. A resumption Jetstream does replay keeps no gap.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTrackedBlueskyStream } from '@server/tracking/streams';
import type { TrackingResponse } from '@contract/tracking';
import { postEvent, startJetstreamStandIn, type JetstreamStandIn } from '@test/support/jetstream-stand-in';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

const DID = 'did:plc:resume4567abcdefghijklmno';
const MINUTE_US = 60_000_000;

let server: TestServer;
let team: Team;
const standIns: JetstreamStandIn[] = [];

beforeAll(async () => {
  server = await createTestServer();
  team = await createTeam(server);
});
afterAll(async () => {
  await Promise.all(standIns.map((standIn) => standIn.close()));
  await server?.close();
});

const base = () => `/api/workspaces/${team.workspaceId}/saved-queries`;
const cursor = async () =>
  Number(
    (
      await server.pool.query<{ c: string }>(
        `SELECT cursor_us::text AS c FROM stream_cursors WHERE name = 'bluesky-jetstream'`,
      )
    ).rows[0]?.c ?? 0,
  );

/** Streams from a stand-in serving `events` until the cursor reaches `until`, then stops. */
async function streamUntil(events: ReturnType<typeof postEvent>[], until: number) {
  const standIn = await startJetstreamStandIn({ events });
  standIns.push(standIn);
  const stream = startTrackedBlueskyStream(server, server.app.billing.catalogue, standIn.url, {
    log: () => {},
  });
  await expect.poll(cursor, { timeout: 10_000 }).toBe(until);
  await stream.stop();
  return standIn;
}

const coverage = async (id: string) =>
  (await as(server, team.manager, { method: 'GET', url: `${base()}/${id}/tracking` }))
    .json<TrackingResponse>()
    .coverage.find((c) => c.source === 'bluesky')!;

it('keeps the span Jetstream did not replay as an ended gap, once, and none for a replayed resumption', async () => {
  const created = await as(server, team.manager, {
    method: 'POST',
    url: base(),
    payload: { name: 'Glimmerfen', query: 'glimmerfen' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: string }>().id;
  const put = await as(server, team.manager, {
    method: 'PUT',
    url: `${base()}/${id}/tracking`,
    payload: { enabled: true, sources: ['bluesky'] },
  });
  expect(put.statusCode, put.body).toBe(200);
  // Tracked an hour ago: the spans below are within its tracking.
  await server.pool.query(
    `UPDATE tracking_coverage SET tracking_since = now() - interval '1 hour' WHERE saved_query_id = $1`,
    [id],
  );

  const now = Date.now() * 1_000;
  const stopped = now - 40 * MINUTE_US;
  await streamUntil([postEvent(stopped, DID, '3kresume1', 'nothing to see')], stopped);

  // Resumed 30 minutes later than its cursor: the first event the stand-in keeps.
  const resumed = now - 10 * MINUTE_US;
  const later = [
    postEvent(resumed, DID, '3kresume2', 'still nothing'),
    postEvent(resumed + 1, DID, '3kresume3', 'glimmerfen at last'),
  ];
  const standIn = await streamUntil(later, resumed + 1);
  expect(standIn.connections[0]!.get('cursor')).toBe(String(stopped - 5_000_000));
  const kept = await coverage(id);
  expect(kept.closed_gaps).toEqual([
    {
      reason: 'unreachable',
      message:
        `Jetstream resumed at ${new Date(resumed / 1_000).toISOString().slice(11, 16)} UTC, not from ` +
        `${new Date(stopped / 1_000).toISOString().slice(11, 16)} UTC where the Bluesky stream had stopped: what ` +
        'Bluesky posted between is not collected (Jetstream no longer kept it).',
      since: Math.floor(stopped / 1_000_000),
      ended: Math.floor(resumed / 1_000_000),
    },
  ]);
  // The stream went on: the matching post it read is collected.
  expect(kept.posts_today).toBe(1);

  // Resumed again from the same stand-in, which replays from the cursor: no new gap.
  const again = startTrackedBlueskyStream(server, server.app.billing.catalogue, standIn.url, {
    log: () => {},
  });
  await expect.poll(() => standIn.connections.length, { timeout: 10_000 }).toBe(2);
  await expect.poll(() => standIn.sent, { timeout: 10_000 }).toBe(4);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await again.stop();
  expect((await coverage(id)).closed_gaps).toHaveLength(1);
}, 60_000);
