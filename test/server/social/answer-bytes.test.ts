// A dashboard's answer is sent as bytes made once (server/social/insights/answer-bytes.ts): its JSON as the route's
// serializer writes it and that JSON's brotli and gzip forms, kept by the answer cache, so a repeat is a write of
// stored bytes. What is checked: a cached answer decompressed is byte for byte the answer computed and serialized
// apart; the encoding follows Accept-Encoding, with Vary; what an answer says of its request (the plan's clip, the
// sealed next cursor) is right for every request that shares it.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { overviewResponseSchema } from '@contract/insights-responses';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/insights.fixtures';
import { plansFile } from '@test/support/billing.fixtures';
import { AnswerCache } from '@server/social/insights/answer-cache';
import { negotiateEncoding } from '@server/social/insights/answer-bytes';
import { resolveInsightScope } from '@server/social/insights/request';
import { overview } from '@server/social/insights/overview';

const RANGE = { from: '2026-10-25T04:00:00Z', to: '2026-11-08T05:00:00Z' };
const ZONE = 'America/New_York';
const DAY_MS = 86_400_000;
/** The plan's history: from two days before RANGE (the fixed corpus's dates), so that RANGE is never clipped. */
const HISTORY_DAYS = Math.ceil((Date.now() - Date.parse(RANGE.from)) / DAY_MS) + 2;
const daysBefore = (iso: string, days: number) => new Date(Date.parse(iso) - days * DAY_MS).toISOString();

let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer({ BILLING_PLANS_FILE: plansFile({ history_days: HISTORY_DAYS }) });
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']], { timeZone: ZONE })).id;
  await insertCorpus(server);
});
afterAll(() => server.close());

const dashboard = (endpoint: string, body: Record<string, unknown>, encoding?: string) =>
  as(server, viewer, {
    method: 'POST',
    url: `/social/insights/${endpoint}`,
    payload: { workspace_id: workspaceId, filters: RANGE, ...body },
    headers: encoding === undefined ? {} : { 'accept-encoding': encoding },
  });

/** The bytes of the JSON an answer carries, whatever its Content-Encoding. */
function jsonBytes(response: { headers: Record<string, unknown>; rawPayload: Buffer }): Buffer {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload);
  if (encoding === 'gzip') return gunzipSync(response.rawPayload);
  expect(encoding).toBeUndefined();
  return response.rawPayload;
}

describe("a dashboard's answer as stored bytes", () => {
  it('sends a cached answer that is, decompressed, byte for byte the answer computed and serialized apart', async () => {
    const body = { query: 'outage OR nova' };
    const first = await dashboard('overview', body);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');

    // The same request computed here, without the route, and written by the route's serializer as every answer was.
    const context = await resolveInsightScope(
      server.db,
      { timeZone: ZONE },
      {
        workspace_id: workspaceId,
        filters: RANGE,
        ...body,
      },
    );
    const serialize = serializerCompiler({
      schema: overviewResponseSchema,
      method: 'POST',
      url: '/insights/overview',
      httpStatus: '200',
    });
    const apart = Buffer.from(serialize(await overview(server.analyticsDb, context, server.analytics)));
    expect(first.rawPayload.equals(apart)).toBe(true);

    const hits = server.app.analytics.cache.stats.hits;
    const cases: Array<[string | undefined, string | undefined]> = [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['deflate', undefined],
      [undefined, undefined],
    ];
    const sent = new Map<string, Buffer>();
    for (const [accepted, encoding] of cases) {
      const hit = await dashboard('overview', body, accepted);
      expect(hit.statusCode, String(accepted)).toBe(200);
      expect(hit.headers['content-encoding'], String(accepted)).toBe(encoding);
      expect(hit.headers.vary, String(accepted)).toBe('accept-encoding');
      expect(hit.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(hit.headers['cache-control']).toBe('no-store');
      expect(Number(hit.headers['content-length'])).toBe(hit.rawPayload.length);
      expect(jsonBytes(hit).equals(apart), String(accepted)).toBe(true);
      // The compressed forms were made once, when the answer was kept: every hit sends the very same bytes.
      if (encoding) {
        const before = sent.get(encoding);
        if (before) expect(hit.rawPayload.equals(before)).toBe(true);
        sent.set(encoding, hit.rawPayload);
        expect(hit.rawPayload.length).toBeLessThan(apart.length / 2);
      }
    }
    expect(server.app.analytics.cache.stats.hits).toBe(hits + cases.length);
  });

  it('sends an answer under 1 KB as it is, whatever the client accepts', async () => {
    const empty = await dashboard('posts', { query: 'zzzznothingmatches', limit: 5 }, 'br');
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.rawPayload.length).toBeLessThan(1024);
    expect(empty.headers['content-encoding']).toBeUndefined();
    expect(empty.headers.vary).toBe('accept-encoding');
    expect(empty.json()).toMatchObject({ posts: [], next_cursor: null });
  });

  it("keeps each request's history clip and a cursor that opens the next page in the shared bytes", async () => {
    const to = RANGE.to;
    // Both start before the plan's history and are clipped to the same start: one range, two requested starts.
    const early = { query: 'outage', filters: { from: daysBefore(RANGE.from, 12), to } };
    const earlier = { query: 'outage', filters: { from: daysBefore(RANGE.from, 20), to } };
    for (const request of [early, earlier, early, earlier]) {
      const res = await dashboard('overview', request, 'gzip');
      expect(res.statusCode, res.body).toBe(200);
      const answer = JSON.parse(jsonBytes(res).toString()) as { history_clip: unknown };
      expect(answer.history_clip).toEqual({
        requested_from: request.filters.from,
        history_days: HISTORY_DAYS,
      });
    }

    const page = { query: 'outage OR nova OR latte', limit: 2, sort: 'recency' };
    const first = await dashboard('posts', page, 'br');
    const again = await dashboard('posts', page, 'br');
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    const { next_cursor: cursor, posts } = JSON.parse(jsonBytes(again).toString()) as {
      next_cursor: string;
      posts: Array<{ id: string }>;
    };
    expect(typeof cursor).toBe('string');
    const next = await dashboard('posts', { ...page, cursor });
    expect(next.statusCode, next.body).toBe(200);
    const following = next.json<{ posts: Array<{ id: string }> }>().posts;
    expect(following.length).toBeGreaterThan(0);
    expect(following.map((post) => post.id)).not.toContain(posts[0]!.id);
  });
});

describe('the answer cache', () => {
  it('keeps an answer with its compressed forms made, and counts their bytes against its bound', async () => {
    const cache = new AnswerCache({ maxBytes: 1_000_000, readVersion: () => Promise.resolve(1) });
    const json = Buffer.from(
      JSON.stringify({ words: Array.from({ length: 500 }, (_, i) => `word ${i % 7}`) }),
    );
    const computed = await cache.answer('key', (version) =>
      Promise.resolve({ value: json, version: version!, from: 'primary', asOf: null }),
    );
    const hit = await cache.answer('key', () => Promise.reject(new Error('not asked')));
    expect(hit.from).toBe('cache');
    expect(hit.value).toBe(computed.value);
    const br = await hit.value.encoding('br');
    const gz = await hit.value.encoding('gzip');
    expect(brotliDecompressSync(br).equals(json)).toBe(true);
    expect(gunzipSync(gz).equals(json)).toBe(true);
    expect(cache.size.bytes).toBe(json.length + br.length + gz.length + 'key'.length * 2 + 4);
  });

  it('negotiates the encoding as the compression plugin does', () => {
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('br;q=0.2, gzip;q=0.8')).toBe('gzip');
    expect(negotiateEncoding('BR')).toBe('br');
    expect(negotiateEncoding('identity;q=1, *;q=0')).toBeNull();
    expect(negotiateEncoding('')).toBeNull();
    expect(negotiateEncoding(undefined)).toBeNull();
  });
});
