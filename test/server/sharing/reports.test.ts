// PDF reports when they cannot be made (server/sharing/report.ts): a Chromium that does not start, and a page that
// never draws, are each a 503 report_failed with a sentence within the report's budget, never a 500; the report's
// temporary link is removed whatever happened. The printer takes workspaces in turns: one account's burst fills its
// own workspace's queue (then 503 busy for it), never another workspace's, whose report is printed next.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTS_WAITING_PER_WORKSPACE } from '@server/sharing/report';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

const RANGE = { from: '2026-10-20T00:00:00Z', to: '2026-11-10T00:00:00Z' };
const dir = mkdtempSync(join(tmpdir(), 'murmur-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server listening on a free port (the report's page is opened at the server's own address). */
async function listening(env: Record<string, string>, options: Parameters<typeof createTestServer>[1]) {
  const server = await createTestServer(env, options);
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  return server;
}

const report = (server: TestServer, person: Person, workspaceId: string) =>
  as(server, person, {
    method: 'POST',
    url: '/social/insights/report',
    payload: { workspace_id: workspaceId, dashboard: 'overview', view: { query: 'coffee', filters: RANGE } },
  });

const reportLinks = async (server: TestServer) =>
  (
    await server.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM share_links WHERE purpose = 'report'",
    )
  ).rows[0]!.n;

describe('a report that cannot be made', () => {
  let server: TestServer;
  let team: Team;
  beforeAll(async () => {
    // A built SPA whose page never marks the report drawn.
    const spaDir = mkdtempSync(join(dir, 'spa-'));
    writeFileSync(
      join(spaDir, 'index.html'),
      '<!doctype html><title>Never drawn</title><p>Nothing here.</p>',
    );
    server = await listening(
      { REPORT_CHROMIUM_PATH: '/usr/bin/chromium' },
      { spaDir, reports: { budgetMs: 5_000 } },
    );
    team = await createTeam(server);
  });
  afterAll(() => server.close());

  it('is a 503 report_failed with a sentence when its page never draws, its link removed', async () => {
    const res = await report(server, team.viewer, team.workspaceId);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toEqual({
      error: 'report_failed',
      message: 'The report was not ready within 5 seconds, so it was given up. Try again in a minute.',
    });
    expect(await reportLinks(server)).toBe(0);
  }, 60_000);
});

describe('a Chromium that does not start', () => {
  let server: TestServer;
  let team: Team;
  beforeAll(async () => {
    server = await listening({ REPORT_CHROMIUM_PATH: '/bin/false' }, { reports: { budgetMs: 20_000 } });
    team = await createTeam(server);
  });
  afterAll(() => server.close());

  it('is a 503 report_failed with a sentence, never a 500, and the link is removed', async () => {
    const res = await report(server, team.owner, team.workspaceId);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toEqual({
      error: 'report_failed',
      message: "The report could not be made: the server's Chromium did not start. Try again later.",
    });
    expect(await reportLinks(server)).toBe(0);
  }, 60_000);
});

describe('reports of several workspaces', () => {
  let server: TestServer;
  let busy: Team;
  let other: Team;
  beforeAll(async () => {
    // A "Chromium" that never answers: each report takes its whole budget, then fails.
    const hanging = join(dir, 'hanging-chromium');
    writeFileSync(hanging, '#!/bin/sh\nexec sleep 60\n');
    chmodSync(hanging, 0o755);
    server = await listening({ REPORT_CHROMIUM_PATH: hanging }, { reports: { budgetMs: 2_500 } });
    [busy, other] = [await createTeam(server), await createTeam(server)];
  });
  afterAll(() => server.close());

  it("take turns: one account's burst is refused past its workspace's queue, another workspace's is next", async () => {
    const finished: string[] = [];
    const ask = (name: string, person: Person, workspaceId: string) =>
      report(server, person, workspaceId).then((res) => {
        finished.push(name);
        return res;
      });
    // One account asks for one more report than is printed and may wait.
    const burst = Array.from({ length: REPORTS_WAITING_PER_WORKSPACE + 2 }, (_, i) =>
      ask(`busy ${i}`, busy.owner, busy.workspaceId),
    );
    // Its last one is refused at once, while the first is being printed.
    await expect.poll(() => finished.length, { timeout: 2_000 }).toBe(1);
    const refused = await Promise.race(burst);
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({
      error: 'busy',
      message: 'Several reports of this workspace are being printed right now. Try again in a minute.',
    });
    expect(refused.headers['retry-after']).toBe('60');
    const refusedName = finished[0]!;

    const otherWorkspace = await ask('other', other.viewer, other.workspaceId);
    const all = await Promise.all(burst);
    expect(otherWorkspace.statusCode).toBe(503);
    expect(otherWorkspace.json<{ error: string }>().error).toBe('report_failed');
    expect(all.filter((res) => res.json<{ error: string }>().error === 'busy')).toHaveLength(1);
    // The other workspace's report came right after the one being printed when it asked (finished[0] is the one
    // refused, finished[1] the one being printed), before the burst's others waiting since before it.
    expect(finished[2]).toBe('other');
    expect(finished.filter((name) => name !== refusedName && name !== 'other')).toHaveLength(
      REPORTS_WAITING_PER_WORKSPACE + 1,
    );
    expect(await reportLinks(server)).toBe(0);
  }, 90_000);
});
