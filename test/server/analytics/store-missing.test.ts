// A store that lost a table of its layout under the running service (a ClickHouse server's table dropped, its files
// lost): a dashboard read meanwhile is answered 503 figures_preparing, and the service rebuilds the store, saying which table
// it lacked, rather than reconciling it as current and failing every round and read after. A statement that names a
// table no layout has, on a whole store, is the statement's fault: refused as any other, the store kept. The
// conversation's stop words, kept outside the store's database, are written again when their table is gone.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STORE_DATABASE } from '@server/analytics/layout';
import { conversation } from '@server/social/insights/conversation';
import { overview } from '@server/social/insights/overview';
import { fromStore } from '@server/social/insights/store-source';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { contextOf, generatedCorpus, RANGES, runningService, type Case } from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
const lines: string[] = [];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  await generatedCorpus(server, 41, 600);
  running = await runningService(server, 'store-missing-', { log: (line) => lines.push(line), pollMs: 200 });
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const everyPost: Case = { name: 'every post', zone: 'America/New_York', range: RANGES['30 days of days']! };

/** Whether the store's process has `table` in `database`. */
async function hasTable(database: string, table: string) {
  const [row] = await running.service.store!.query<{ n: string }>(
    'SELECT count() AS n FROM system.tables WHERE database = {database:String} AND name = {table:String}',
    { database, table },
  );
  return Number(row!.n) === 1;
}

describe('a store missing a table', () => {
  it('refuses a statement naming a table no layout has, and keeps the store', async () => {
    const { service } = running;
    const context = await contextOf(server, everyPost);
    const read = fromStore(
      server.db,
      context,
      service,
      (store) => store.query(`SELECT 1 FROM ${STORE_DATABASE}.no_such_table`),
      async (_tx, rows) => rows,
    );
    await expect(read).rejects.toThrow(/UNKNOWN_TABLE/);
    expect(service.state().caughtUp).toBe(true);
    expect(lines.join('\n')).not.toMatch(/not what its position says/);
  });

  it('writes the conversation’s stop words again when their table is gone, and answers from the store', async () => {
    const { service } = running;
    const context = await contextOf(server, everyPost);
    const expected = await conversation(server.db, context, 10, undefined, service);
    await conversation(server.db, context, 10, undefined, service); // the stop words written
    await service.store!.exec('DROP TABLE murmur_rules.stop_words SYNC');
    const query = vi.spyOn(service.store!, 'query');
    const answer = await conversation(server.db, context, 10, undefined, service);
    expect(query).toHaveBeenCalled();
    query.mockRestore();
    expect(answer.terms).toEqual(expected.terms);
    expect(await hasTable('murmur_rules', 'stop_words')).toBe(true);
    expect(service.state().caughtUp).toBe(true);
  });

  it('answers figures_preparing meanwhile, and rebuilds the store, which then answers again', async () => {
    const { service } = running;
    const context = await contextOf(server, everyPost);
    const expected = await overview(server.db, context, service);
    await service.store!.exec(`DROP TABLE ${STORE_DATABASE}.posts SYNC`);
    const rebuiltBefore = lines.filter((line) => line.includes('Rebuilt:')).length;
    // The store's statement refused: the honest wait, and the store distrusted.
    await expect(overview(server.db, context, service)).rejects.toMatchObject({
      statusCode: 503,
      code: 'figures_preparing',
    });
    // Rebuilt, and caught up again (a round may report caught up before the distrust is acted on).
    await vi.waitFor(
      () => {
        expect(lines.filter((line) => line.includes('Rebuilt:')).length).toBeGreaterThan(rebuiltBefore);
        expect(service.state().caughtUp).toBe(true);
      },
      { timeout: 120_000, interval: 50 },
    );
    const log = lines.join('\n');
    expect(log).toMatch(/not what its position says \(.*UNKNOWN_TABLE/);
    expect(log).toMatch(/Rebuilding the store from PostgreSQL: its table posts is missing\./);
    expect(await hasTable(STORE_DATABASE, 'posts')).toBe(true);
    const again = await overview(server.db, context, service);
    expect(again.totals).toEqual(expected.totals);
    expect(again.over_time).toEqual(expected.over_time);
  });
});
