// The periodic jobs on pg-boss's schedules (server/scheduler.ts): two servers on one database, each with its own
// queue instance and pool as two processes have, register the same jobs. On a shared test clock every job runs once
// per period, whichever server takes it, and periods missed while no server ran are made up by one run.
import { TestClock, type PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { billingJob } from '@server/billing/job';
import { housekeepingJob } from '@server/housekeeping';
import { schedulePeriodic, startQueue, type PeriodicJob } from '@server/scheduler';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
const queues: PgBoss[] = [];

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => {
  for (const queue of queues) await queue.stop({ graceful: false }).catch(() => undefined);
  await server.close();
});

const quiet = () => undefined;
const MINUTE = 60_000;
const at = (hour: number, minute: number) => new Date(Date.UTC(2026, 10, 23, hour, minute));

interface Run {
  job: string;
  server: string;
  /** The test clock's minute when it ran. */
  minute: number;
}

/** The jobs `npm start` schedules, each noting its runs. */
function jobsOf(serverName: string, clock: TestClock, runs: Run[]): PeriodicJob[] {
  return [housekeepingJob(server.db, { log: quiet }), billingJob(server.app.billing, { log: quiet })].map(
    (job) => ({
      ...job,
      run: async () => {
        runs.push({ job: job.name, server: serverName, minute: Math.floor(clock.now() / MINUTE) });
        await job.run();
      },
    }),
  );
}

/** Moves the clock a second at a time, letting each second's polls and handlers go. */
async function advance(clock: TestClock, ms: number) {
  for (let moved = 0; moved < ms; moved += 1000) {
    await clock.tick(1000);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('periodic jobs on one scheduler', () => {
  it('two servers on one database run each job once per period', { timeout: 240_000 }, async () => {
    expect(server.config.BILLING_JOB_EVERY_MINUTES).toBe(1);
    const clock = new TestClock(at(9, 58));
    const runs: Run[] = [];
    for (const name of ['a', 'b']) {
      const queue = await startQueue(
        server.config,
        { connectionString: server.databaseUrl },
        { log: quiet, clock },
      );
      queues.push(queue);
      await schedulePeriodic(queue, jobsOf(name, clock, runs), quiet);
    }
    const of = (job: string) => runs.filter((run) => run.job === job);
    const hourOf = (run: Run) => new Date(run.minute * MINUTE).getUTCHours();

    // Three hours, each crossed where housekeeping runs (five past): from a minute before to two after.
    for (const hour of [10, 11, 12]) {
      await clock.setTime(at(hour, 4));
      await advance(clock, 3 * MINUTE);
      await vi.waitFor(() => expect(of('housekeeping').length).toBe(hour - 9), { timeout: 10_000 });
    }
    await advance(clock, 10_000);
    expect(of('housekeeping').map(hourOf)).toEqual([10, 11, 12]);
    // The billing job every minute: at least the three minutes crossed each hour, and never a minute twice.
    const billingMinutes = of('billing').map((run) => run.minute);
    expect(billingMinutes.length).toBeGreaterThanOrEqual(9);
    expect(new Set(billingMinutes).size).toBe(billingMinutes.length);
    // Both servers took part: whichever polls first takes a period's job.
    expect(new Set(runs.map((run) => run.server))).toEqual(new Set(['a', 'b']));

    // Three hours with no server: the hours missed are made up by one housekeeping round, not three.
    for (const queue of queues) await queue.offWork('housekeeping');
    await clock.setTime(at(15, 30));
    const before = of('housekeeping').length;
    await advance(clock, 5000);
    await queues[0]!.work('housekeeping', async () => {
      runs.push({ job: 'housekeeping', server: 'a', minute: Math.floor(clock.now() / MINUTE) });
    });
    await advance(clock, 60_000);
    await vi.waitFor(() => expect(of('housekeeping').length).toBe(before + 1), { timeout: 10_000 });
    await advance(clock, 10_000);
    expect(of('housekeeping').length).toBe(before + 1);
  });
});
