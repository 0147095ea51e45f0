// The store is the only engine of the figures: while it cannot answer, a figure route says so honestly. A store still
// opening is 503 figures_preparing with Retry-After and its progress, then the figures once it is ready; a server
// without a store (ANALYTICS_STORE=off) is 503 figures_unavailable with a sentence; never a 500. The wait comes after
// the route's own checks (a non-member still gets 404) and before its handler (no dashboard volume counted).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figuresWaitSchema } from '@contract/figures';
import { figuresPreparing } from '@server/analytics/figures-wait';
import { AnalyticsService } from '@server/analytics/service';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let viewer: Person;
let outsider: Person;
let workspaceId: string;
const dir = mkdtempSync(join(tmpdir(), 'murmur-figures-wait-'));

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  viewer = await server.createUser();
  outsider = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']])).id;
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const overview = (person: Person) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/overview',
    payload: { workspace_id: workspaceId, query: 'coffee' },
  });

const volumeUsed = async () =>
  (await server.pool.query<{ n: string }>('SELECT coalesce(sum(count), 0)::text AS n FROM usage_counters'))
    .rows[0]?.n;

describe('figures while the store cannot answer', () => {
  it('without a store: 503 figures_unavailable with a sentence, for every figure route', async () => {
    server.app.deps.analytics = undefined;
    for (const [url, payload] of [
      ['/social/insights/overview', { workspace_id: workspaceId, query: 'coffee' }],
      ['/social/insights/posts', { workspace_id: workspaceId, query: 'coffee' }],
      ['/social/discover', { workspace_id: workspaceId, query: 'coffee' }],
      ['/social/saved-queries/volume', { workspace_id: workspaceId }],
      ['/social/insights/tag-counts', { workspace_id: workspaceId }],
    ] as const) {
      const res = await as(server, viewer, { method: 'POST', url, payload });
      expect(res.statusCode, `${url} ${res.body}`).toBe(503);
      const body = figuresWaitSchema.parse(res.json());
      expect(body.error).toBe('figures_unavailable');
      expect(body.message).toMatch(/ANALYTICS_STORE=off/);
    }
    expect((await overview(outsider)).statusCode).toBe(404);
  });

  it('while it opens: 503 figures_preparing with Retry-After and progress, then the figures', async () => {
    const before = await volumeUsed();
    const service = AnalyticsService.start({
      db: server.db,
      pool: server.pool,
      dataDir: join(dir, 'store'),
      coalesceMs: 0,
      log: () => {},
    });
    server.app.deps.analytics = service;
    try {
      const res = await overview(viewer);
      expect(res.statusCode, res.body).toBe(503);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const body = figuresWaitSchema.parse(res.json());
      expect(body.error).toBe('figures_preparing');
      expect(body.progress?.phase, res.body).toMatch(/opening|rebuilding/);
      expect(await volumeUsed()).toBe(before);
      expect((await overview(outsider)).statusCode).toBe(404);
      await service.caughtUpOnce();
      const ready = await overview(viewer);
      expect(ready.statusCode, ready.body).toBe(200);
    } finally {
      server.app.deps.analytics = undefined;
      await service.stop();
    }
  });

  it("words a rebuild's progress over all its phases, with the time left", () => {
    const error = figuresPreparing({
      phase: 'rebuilding',
      ready: false,
      caughtUp: false,
      appliedSeq: null,
      corpusVersion: null,
      progress: { phase: 'tokens', step: 2, steps: 3, done: 290, total: 1000, percent: 29, etaSeconds: 120 },
    });
    expect(error.statusCode).toBe(503);
    expect(error.message).toBe('Preparing figures: 43 %, about 4 minutes left.');
    expect(error.options.body).toEqual({
      progress: { phase: 'rebuilding', done: 290, total: 1000, percent: 43, eta_seconds: 240 },
    });
  });
});
