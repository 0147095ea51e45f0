// The Bluesky stream follows tracking as it changes: a query a manager tracks while the stream runs collects the next
// matching post (not a minute later, at the stream's periodic read of its queries), and an edit of a tracked query's
// text collects what the new text matches from then on. The API announces the change (NOTIFY), the stream reads its
// queries again at once (server/scraping/streams/bluesky-stream.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTrackedBlueskyStream } from '@server/tracking/streams';
import type { TrackingResponse } from '@contract/tracking';
import { postEvent, startJetstreamStandIn, type JetstreamStandIn } from '@test/support/jetstream-stand-in';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Team } from '@test/support/workspaces.fixtures';

const DID = 'did:plc:tracking4567abcdefghijklm';

let server: TestServer;
let standIn: JetstreamStandIn;
let stream: { stop(): Promise<void> } | undefined;
let team: Team;

beforeAll(async () => {
  [server, standIn] = await Promise.all([createTestServer(), startJetstreamStandIn({ events: [] })]);
  team = await createTeam(server);
  // The periodic read is the default minute: only the announcement can make the stream see a change in time.
  stream = startTrackedBlueskyStream(server, server.app.billing.catalogue, standIn.url, { log: () => {} });
});
afterAll(async () => {
  await stream?.stop();
  await standIn?.close();
  await server?.close();
});

const base = () => `/api/workspaces/${team.workspaceId}/saved-queries`;
let seq = 0;
/** A post of now, as the stream would bring it. */
const post = (text: string) => {
  seq += 1;
  return postEvent(Date.now() * 1_000 + seq, DID, `3ktrack${seq}`, text);
};

const stored = async () =>
  (
    await server.pool.query<{ text: string }>(
      `SELECT text FROM posts WHERE platform = 'bluesky' ORDER BY posted_at, text`,
    )
  ).rows.map((row) => row.text);

const postsToday = async (id: string) => {
  const res = await as(server, team.manager, { method: 'GET', url: `${base()}/${id}/tracking` });
  return res.json<TrackingResponse>().coverage.find((c) => c.source === 'bluesky')?.posts_today;
};

it('collects for a query as soon as it is tracked, and for its new text as soon as it is edited', async () => {
  await expect.poll(() => standIn.connections.length, { timeout: 10_000 }).toBe(1);
  const created = await as(server, team.manager, {
    method: 'POST',
    url: base(),
    payload: { name: 'Zephyrwind', query: 'zephyrwind' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: string }>().id;

  // Before tracking: a matching post is not collected.
  standIn.push(post('zephyrwind before tracking'));
  await expect.poll(() => standIn.sent, { timeout: 5_000 }).toBe(1);

  const put = await as(server, team.manager, {
    method: 'PUT',
    url: `${base()}/${id}/tracking`,
    payload: { enabled: true, sources: ['bluesky'] },
  });
  expect(put.statusCode, put.body).toBe(200);
  // The announcement reaches the stream within moments; the stream's matcher then holds the query.
  await new Promise((resolve) => setTimeout(resolve, 500));
  standIn.push(post('the zephyrwind is here'), post('nothing to see'));
  await expect.poll(stored, { timeout: 5_000 }).toEqual(['the zephyrwind is here']);
  expect(await postsToday(id)).toBe(1);

  const edited = await as(server, team.manager, {
    method: 'PATCH',
    url: `${base()}/${id}`,
    payload: { query: 'aurorafell' },
  });
  expect(edited.statusCode, edited.body).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  standIn.push(post('zephyrwind again'), post('aurorafell at dawn'));
  await expect.poll(stored, { timeout: 5_000 }).toEqual(['the zephyrwind is here', 'aurorafell at dawn']);
  expect(await postsToday(id)).toBe(2);
});
