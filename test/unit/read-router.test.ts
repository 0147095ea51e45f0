// Where the heavy requests read (server/social/reads.ts), with stand-ins for the pools: each read "runs" on the
// database it is given and reports its snapshot as a dashboard transaction's first statement does (noteSnapshot).
// The real replica is in test/server/db/read-replica.test.ts.
import { AsyncResource } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import type { Db, ReadReplica } from '@server/db/database';
import { noteSnapshot, ReadRouter } from '@server/social/reads';

const primary = { name: 'primary' } as unknown as Db;
const replica = (name: string): ReadReplica => ({
  db: { name } as unknown as Db,
  pool: {} as ReadReplica['pool'],
  describe: `postgres://murmur@${name}/murmur`,
});
const nameOf = (db: Db) => (db as unknown as { name: string }).name;

/** A snapshot at `version`; on a replica, its last replayed transaction `ageMs` ago. */
const snapshot = (version: number, ageMs: number | null = null) => {
  const replayed = ageMs === null ? null : Date.now() - ageMs;
  noteSnapshot({
    murmur_corpus_version: String(version),
    murmur_replayed_at: replayed,
    murmur_replay_age_ms: ageMs,
  });
};

function router(
  replicas: ReadReplica[],
  options: { maxLagMs?: number; version?: number; retryMs?: number } = {},
) {
  const logs: string[] = [];
  const reads = new ReadRouter({
    primary,
    replicas,
    maxLagMs: options.maxLagMs ?? 30_000,
    primaryVersion: () => Promise.resolve(options.version ?? 7),
    retryMs: options.retryMs,
    log: (line) => logs.push(line),
  });
  return { reads, logs };
}

/** An error as pg gives it for a server that is not there. */
const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' });

describe('reads without replicas', () => {
  it('run on the primary, with the version their snapshot saw', async () => {
    const { reads } = router([]);
    expect(reads.replicated).toBe(false);
    const read = await reads.read(async (db) => (snapshot(3), nameOf(db)));
    expect(read).toEqual({ value: 'primary', version: 3, from: 'primary', asOf: null });
  });

  it('have no version when their statements saw different ones, or none', async () => {
    const { reads } = router([]);
    expect((await reads.read(async () => (snapshot(3), snapshot(4), 0))).version).toBeNull();
    expect((await reads.read(async () => 0)).version).toBeNull();
  });
});

describe('reads with replicas', () => {
  it('go to the least busy replica, in turns among equals', async () => {
    const { reads } = router([replica('a'), replica('b')]);
    const served: string[] = [];
    for (let i = 0; i < 4; i += 1)
      served.push((await reads.read(async (db) => (snapshot(7, 5), nameOf(db)))).value);
    expect(served).toEqual(['a', 'b', 'a', 'b']);
    // While one is busy, the other takes the reads.
    let finish!: () => void;
    const busy = reads.read((db) => new Promise<string>((resolve) => (finish = () => resolve(nameOf(db)))));
    const others = [];
    for (let i = 0; i < 3; i += 1)
      others.push((await reads.read(async (db) => (snapshot(7, 5), nameOf(db)))).value);
    finish();
    const busyOn = (await busy).value;
    expect(others).toEqual(Array(3).fill(busyOn === 'a' ? 'b' : 'a'));
  });

  it('say how old a lagging replica answer is, within the bound', async () => {
    const { reads } = router([replica('a')], { version: 7, maxLagMs: 30_000 });
    const read = await reads.read(async (db) => (snapshot(6, 2000), nameOf(db)));
    expect(read.from).toBe('replica');
    expect(read.version).toBe(6);
    expect(Date.now() - read.asOf!.getTime()).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - read.asOf!.getTime()).toBeLessThan(5000);
    // Caught up (or past the version read a moment before): no asOf.
    expect((await reads.read(async () => (snapshot(7, 60_000), 0))).asOf).toBeNull();
    expect((await reads.read(async () => (snapshot(8, 60_000), 0), 7)).asOf).toBeNull();
  });

  it('go to the primary when the replica is further behind than the bound, or cannot say how far', async () => {
    const { reads } = router([replica('a')], { version: 7, maxLagMs: 1000 });
    const tooOld = await reads.read(async (db) => (snapshot(nameOf(db) === 'a' ? 6 : 7, 2000), nameOf(db)));
    expect(tooOld).toMatchObject({ value: 'primary', version: 7, from: 'primary', asOf: null });
    const unknown = await reads.read(async (db) => (snapshot(nameOf(db) === 'a' ? 6 : 7, null), nameOf(db)));
    expect(unknown.value).toBe('primary');
    expect(reads.stats).toMatchObject({ behind: 2, primary: 2, replica: 0 });
  });

  it("neither record nor refuse what runs in their context after they answered (an export's later pages)", async () => {
    const { reads } = router([replica('a')], { version: 7, maxLagMs: 1000 });
    let laterPage!: () => void;
    const read = await reads.read(async (db) => {
      laterPage = AsyncResource.bind(() => snapshot(5, 60_000));
      return (snapshot(7, 5), nameOf(db));
    });
    expect(read).toMatchObject({ value: 'a', version: 7 });
    expect(() => laterPage()).not.toThrow();
    expect(reads.stats.behind).toBe(0);
  });

  it('leave a replica that is down alone for a while, then try it again', async () => {
    const { reads, logs } = router([replica('a'), replica('b')], { retryMs: 100 });
    let aDown = true;
    const run = async (db: Db) => {
      if (nameOf(db) === 'a' && aDown) throw new Error('Failed query', { cause: refused() });
      return (snapshot(7, 5), nameOf(db));
    };
    expect((await reads.read(run)).value).toBe('b');
    expect(reads.stats.unavailable).toBe(1);
    expect(logs).toEqual([
      expect.stringMatching(/replica postgres:\/\/murmur@a\/murmur unavailable \(Failed query\).*0\.1 s/),
    ]);
    // Not tried while left alone: every read goes to b.
    for (let i = 0; i < 3; i += 1) expect((await reads.read(run)).value).toBe('b');
    expect(reads.stats.unavailable).toBe(1);
    aDown = false;
    await new Promise((resolve) => setTimeout(resolve, 120));
    const after = [(await reads.read(run)).value, (await reads.read(run)).value];
    expect(after.sort()).toEqual(['a', 'b']);
  });

  it('go to the primary when every replica is down', async () => {
    const { reads } = router([replica('a')]);
    const run = async (db: Db) => {
      if (nameOf(db) === 'a')
        throw Object.assign(new Error('the database system is shutting down'), { code: '57P03' });
      return (snapshot(7), nameOf(db));
    };
    expect(await reads.read(run)).toMatchObject({ value: 'primary', from: 'primary' });
    expect((await reads.read(run)).value).toBe('primary');
    expect(reads.stats.unavailable).toBe(1);
  });

  it('go to the primary on a recovery conflict, without leaving the replica alone', async () => {
    const { reads } = router([replica('a')]);
    let conflicts = 1;
    const run = async (db: Db) => {
      if (nameOf(db) === 'a' && conflicts-- > 0) {
        throw Object.assign(new Error('canceling statement due to conflict with recovery'), {
          code: '40001',
        });
      }
      return (snapshot(7, 5), nameOf(db));
    };
    expect((await reads.read(run)).value).toBe('primary');
    expect((await reads.read(run)).value).toBe('a');
    expect(reads.stats).toMatchObject({ conflicts: 1, unavailable: 0 });
  });

  it("pass the read's own failures on, without trying elsewhere", async () => {
    const { reads } = router([replica('a')]);
    let tries = 0;
    const failing = reads.read(async () => {
      tries += 1;
      throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    });
    await expect(failing).rejects.toThrow(/statement timeout/);
    expect(tries).toBe(1);
  });
});
