// The scraping API (issue 19): staff only on the server (403 to everyone else, 401 signed out), jobs created, run on
// the queue (pg-boss, in process here), paused, resumed and cancelled; uploads through the importer; corpus totals.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { fixture, startReplayServer, type ReplayServer } from '@test/support/replay-server';
import { startCollector, type Collector } from '@server/scraping/collector';
import { startQueue } from '@server/scheduler';
import type { PgBoss } from 'pg-boss';
import type { ScrapeJob } from '@contract/scraping';

let server: TestServer;
let replay: ReplayServer;
let collector: Collector;
let queue: PgBoss;
let uploadDir: string;
let staff: { token: string };
let member: { token: string };

beforeAll(async () => {
  replay = await startReplayServer();
  uploadDir = mkdtempSync(join(tmpdir(), 'murmur-uploads-'));
  server = await createTestServer({
    SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
    SCRAPING_UPLOAD_DIR: uploadDir,
    SCRAPING_BLUESKY_URL: replay.url,
  });
  const pool = (server.db as unknown as { $client: pg.Pool }).$client;
  queue = await startQueue(server.config, { pool }, { log: () => undefined });
  collector = await startCollector({ boss: queue, pool, config: server.config, uploadDir, work: true });
  server.app.deps.collector = collector;
  staff = await server.createUser({ isStaff: true });
  member = await server.createUser();
});
afterAll(async () => {
  await collector.stop();
  await queue.stop({ graceful: false });
  await server.close();
  await replay.close();
  rmSync(uploadDir, { recursive: true, force: true });
});

const call = (token: string | undefined, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
  server.app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload && { payload }),
  });

async function until(what: string, jobId: string, check: (job: ScrapeJob) => boolean): Promise<ScrapeJob> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = (await call(staff.token, 'GET', `/api/scraping/jobs/${jobId}`)).json<{ job: ScrapeJob }>()
      .job;
    if (check(job)) return job;
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(job.last_run)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('staff only', () => {
  it('refuses every endpoint to a member who is not staff (403) and to no one signed in (401)', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const endpoints: Array<['GET' | 'POST' | 'PATCH', string, object?]> = [
      ['GET', '/api/scraping/jobs'],
      ['POST', '/api/scraping/jobs', { name: 'x', params: { source: 'bluesky_search', query: 'x' } }],
      ['GET', `/api/scraping/jobs/${id}`],
      ['PATCH', `/api/scraping/jobs/${id}`, { name: 'y' }],
      ['POST', `/api/scraping/jobs/${id}/run`],
      ['POST', `/api/scraping/jobs/${id}/pause`],
      ['POST', `/api/scraping/jobs/${id}/resume`],
      ['POST', `/api/scraping/jobs/${id}/cancel`],
      ['GET', `/api/scraping/runs/${id}/log`],
      ['GET', `/api/scraping/runs/${id}/refused`],
      ['GET', '/api/scraping/totals'],
    ];
    for (const [method, url, payload] of endpoints) {
      const refused = await call(member.token, method, url, payload);
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'staff_only' });
      expect((await call(undefined, method, url, payload)).statusCode).toBe(401);
    }
    const upload = await server.app.inject({
      method: 'POST',
      url: '/api/scraping/uploads?format=ndjson&file_name=a.ndjson',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('{}\n'),
    });
    expect(upload.statusCode).toBe(403);
  });
});

describe('jobs on the queue', () => {
  it('validates each source’s parameters', async () => {
    const bad = await call(staff.token, 'POST', '/api/scraping/jobs', {
      name: 'bad',
      params: { source: 'mastodon_hashtag', instance: 'https://mastodon.social/path', hashtag: 'two words' },
      every_minutes: 1,
    });
    expect(bad.statusCode).toBe(400);
    const paths = bad.json<{ fields: Array<{ path: string }> }>().fields.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['params.instance', 'params.hashtag', 'every_minutes']));
  });

  it('runs a new job at once, on a schedule after that, and reports its counts and log', async () => {
    replay.routes.set('/xrpc/app.bsky.feed.searchPosts', (url) =>
      url.searchParams.get('cursor')
        ? { body: fixture('bluesky-page3.json') }
        : { body: fixture('bluesky-page1.json') },
    );
    const created = await call(staff.token, 'POST', '/api/scraping/jobs', {
      name: 'Bluesky murmur',
      params: { source: 'bluesky_search', query: 'murmur' },
      every_minutes: 60,
    });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<ScrapeJob>();
    const job = await until('the first run', id, (j) => j.last_run?.status === 'succeeded');
    expect(job.last_run).toMatchObject({ fetched: 3, inserted: 2, refused: 1, pages: 2 });
    expect(job.platform).toBe('bluesky');
    // The next run is an hour after this one ended.
    expect(job.next_run_at! - job.last_run!.finished_at!).toBeGreaterThanOrEqual(3590);
    const log = await call(staff.token, 'GET', `/api/scraping/runs/${job.last_run!.id}/log`);
    expect(
      log
        .json<{ entries: Array<{ message: string }> }>()
        .entries.map((e) => e.message)
        .join('\n'),
    ).toMatch(/Started[\s\S]*2 new[\s\S]*Done after 2 pages/);
    const refused = await call(staff.token, 'GET', `/api/scraping/runs/${job.last_run!.id}/refused`);
    expect(refused.json()).toMatchObject({
      total: 1,
      items: [{ reason: expect.stringContaining('text: required') }],
    });
    // Run now: 200, and a second run follows.
    const again = await call(staff.token, 'POST', `/api/scraping/jobs/${id}/run`);
    expect(again.statusCode).toBe(200);
    await until(
      'a second run',
      id,
      (j) => j.last_run?.id !== job.last_run!.id && j.last_run?.status === 'succeeded',
    );
    const totals = await call(staff.token, 'GET', '/api/scraping/totals?days=90');
    expect(totals.json<{ all_time: Array<{ platform: string; posts: number }> }>().all_time).toContainEqual({
      platform: 'bluesky',
      posts: 2,
    });
  });

  it('pauses a running job after its page, resumes it from its cursor, and cancels it for good', async () => {
    let served = 0;
    replay.routes.set('/api/v1/timelines/tag/pausing', (url) => {
      served++;
      const maxId = Number(url.searchParams.get('max_id') ?? 500);
      const id = String(maxId - 1);
      const status = JSON.parse(fixture('mastodon-tag-page1.json'))[0] as Record<string, unknown>;
      return {
        delayMs: 300,
        body: JSON.stringify([{ ...status, id, uri: `https://replay.example/pausing/${id}` }]),
        headers: { link: `<${replay.url}/api/v1/timelines/tag/pausing?max_id=${id}>; rel="next"` },
      };
    });
    const { id } = (
      await call(staff.token, 'POST', '/api/scraping/jobs', {
        name: 'Endless',
        params: { source: 'mastodon_hashtag', instance: replay.url, hashtag: 'pausing', max_pages: 200 },
      })
    ).json<ScrapeJob>();
    await until('two pages', id, (j) => (j.last_run?.pages ?? 0) >= 2);
    expect((await call(staff.token, 'POST', `/api/scraping/jobs/${id}/pause`)).json()).toMatchObject({
      state: 'paused',
    });
    const paused = await until('the pause', id, (j) => j.last_run?.status === 'paused');
    const pagesPaused = paused.last_run!.pages;
    const servedPaused = served;
    await new Promise((r) => setTimeout(r, 800));
    expect(served).toBe(servedPaused);
    // Run now is refused while paused.
    expect((await call(staff.token, 'POST', `/api/scraping/jobs/${id}/run`)).statusCode).toBe(409);
    await call(staff.token, 'POST', `/api/scraping/jobs/${id}/resume`);
    const resumed = await until('more pages', id, (j) => (j.last_run?.pages ?? 0) >= pagesPaused + 2);
    expect(resumed.last_run!.id).toBe(paused.last_run!.id);
    await call(staff.token, 'POST', `/api/scraping/jobs/${id}/cancel`);
    const cancelled = await until('the cancel', id, (j) => j.last_run?.status === 'cancelled');
    expect(cancelled).toMatchObject({ state: 'cancelled', next_run_at: null });
    // One post per page, none twice.
    const { rows } = await (server.db as unknown as { $client: pg.Pool }).$client.query(
      `SELECT count(*)::int AS n FROM posts WHERE external_id LIKE 'https://replay.example/pausing/%'`,
    );
    expect(rows[0].n).toBe(cancelled.last_run!.inserted);
    expect(cancelled.last_run!.inserted).toBe(cancelled.last_run!.pages);
    expect((await call(staff.token, 'POST', `/api/scraping/jobs/${id}/resume`)).statusCode).toBe(409);
  });
});

describe('uploads', () => {
  it('imports an NDJSON file through the importer, refusing the bad row with its line', async () => {
    const rows = [
      {
        platform: 'x',
        external_id: 'up-1',
        author_external_id: 'u1',
        author_handle: 'uploader',
        text: 'Uploaded and happy',
        posted_at: '2025-05-01T10:00:00Z',
      },
      {
        platform: 'x',
        external_id: 'up-2',
        author_external_id: 'u1',
        author_handle: 'uploader',
        text: 'No date',
      },
      {
        platform: 'mastodon',
        external_id: 'up-3',
        author_external_id: 'u2',
        author_handle: 'm@ex.social',
        text: 'Federated',
        posted_at: '2025-05-01T11:00:00Z',
      },
    ];
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/scraping/uploads?format=ndjson&file_name=sample.ndjson',
      headers: { authorization: `Bearer ${staff.token}`, 'content-type': 'application/octet-stream' },
      payload: Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')),
    });
    expect(response.statusCode, response.body).toBe(201);
    const job = response.json<ScrapeJob>();
    expect(job).toMatchObject({ source: 'upload', platform: null, name: 'sample.ndjson' });
    const done = await until('the import', job.id, (j) => j.last_run?.status === 'succeeded');
    expect(done.last_run).toMatchObject({
      fetched: 3,
      inserted: 2,
      refused: 1,
      bytes_total: expect.any(Number),
    });
    const refused = await call(staff.token, 'GET', `/api/scraping/runs/${done.last_run!.id}/refused`);
    expect(refused.json()).toMatchObject({
      items: [{ ref: 'line 2', reason: expect.stringContaining('posted_at: required') }],
    });
  });
});
