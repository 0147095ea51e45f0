// The sentiment rescan's progress (issue 53, item 5): GET /api/scraping/sentiment-rescan for staff only (403 to a
// member), its posts, percent and posts per model; and the overview's and the conversation's answers carrying
// `sentiment_rescan` (which models counted their sentiment) while the rescan runs, through the answer cache, and no
// longer once it has ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse } from '@contract/insights-responses';
import { rescanLine, rescanNote, type SentimentRescanStatus } from '@contract/sentiment-rescan';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { rescanBatch, runRescan } from '@server/social/corpus/rescan';
import { sentimentModelVersion } from '@server/social/corpus/sentiment-model';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let staff: Person;
let member: Person;
let workspaceId: string;
const POSTS = 300;

beforeAll(async () => {
  server = await createTestServer();
  staff = await server.createUser({ isStaff: true });
  member = await server.createUser();
  workspaceId = (await createWorkspace(server, [[member, 'owner']])).id;
  await generateCorpus(server.pool, { seed: 7, posts: POSTS, end: Date.UTC(2026, 10, 15), batchSize: 300 });
}, 120_000);
afterAll(() => server?.close());

const status = async (person: Person) =>
  as(server, person, { method: 'GET', url: '/api/scraping/sentiment-rescan' });

/** The overview's answer (or another dashboard's, for its `sentiment_rescan`). */
async function overview(dashboard = 'overview'): Promise<OverviewResponse> {
  const res = await as(server, member, {
    method: 'POST',
    url: `/social/insights/${dashboard}`,
    payload: {
      workspace_id: workspaceId,
      query: '',
      filters: { from: '2026-08-01T00:00:00Z', to: '2026-11-15T00:00:00Z' },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<OverviewResponse>();
}

describe('the sentiment rescan’s progress', () => {
  it('is staff only', async () => {
    const refused = await status(member);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ error: 'staff_only' });
  });

  it('says how far the rescan is, on the scraping area and on the overview while it runs', async () => {
    const version = sentimentModelVersion();
    // Every post scored by the current model: no rescan runs, the overview says nothing of one.
    expect((await overview()).sentiment_rescan).toBeUndefined();
    await server.pool.query(`SELECT corpus_update_posts('id % 2 = 0', $$sentiment_model = 'unknown'$$)`);
    const old = (
      await server.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM posts WHERE sentiment_model = 'unknown'`,
      )
    ).rows[0]!.n;
    const client = await server.pool.connect();
    try {
      await rescanBatch(client, { batchSize: 50 });
    } finally {
      client.release();
    }

    const res = await status(staff);
    expect(res.statusCode, res.body).toBe(200);
    const { model, rescan } = res.json<SentimentRescanStatus>();
    expect(model).toBe(version);
    expect(rescan).toMatchObject({
      model: version,
      rescanned: 50,
      total: old,
      percent: Math.floor((50 * 100) / old),
      models: { [version]: POSTS - old + 50, unknown: old - 50 },
      finished_at: null,
    });
    expect(rescanLine(rescan!)).toMatch(
      new RegExp(`^Rescanning sentiment with model ${version}: \\d+ % \\(50 of ${old}\\)`),
    );

    const running = await overview();
    expect(running.sentiment_rescan).toMatchObject({ model: version, rescanned: 50, total: old });
    expect(rescanNote(running.sentiment_rescan!)).toBe(
      `Counted by two models until the rescan ends: ${running.sentiment_rescan!.percent} % rescanned`,
    );

    // The conversation's words' sentiment says it too.
    expect((await overview('conversation')).sentiment_rescan).toMatchObject({
      model: version,
      rescanned: 50,
    });

    await runRescan(server.pool);
    const ended = (await status(staff)).json<SentimentRescanStatus>();
    expect(ended.rescan).toMatchObject({ rescanned: old, total: old, percent: 100 });
    expect(ended.rescan!.finished_at).not.toBeNull();
    // The cached answer of a moment ago is not served: the rescan's note is part of its key.
    expect((await overview()).sentiment_rescan).toBeUndefined();
    expect((await overview('conversation')).sentiment_rescan).toBeUndefined();
  });
});
