// The turns of the store's reads and the feed's rounds (server/analytics/read-gate.ts): a round about to write waits
// for the reads under way, at most the bound it is given; reads beginning meanwhile see it pending.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReadGate } from '@server/analytics/read-gate';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe('ReadGate', () => {
  it('lets a round write at once when no read is under way; reads wait for it until it has recorded', async () => {
    const gate = new ReadGate();
    expect(await settled(gate.writesSettled(2_000))).toBe(true);
    expect(await settled(gate.drained(5_000))).toBe(true);
    const waiting = gate.writesSettled(2_000);
    expect(await settled(waiting)).toBe(false);
    gate.writing('begin');
    expect(await settled(waiting)).toBe(false);
    expect(await settled(gate.writesSettled(2_000))).toBe(false);
    gate.writing('end');
    expect(await settled(waiting)).toBe(true);
    expect(await settled(gate.writesSettled(2_000))).toBe(true);
  });

  it('has a read wait no longer than its bound for a round', async () => {
    const gate = new ReadGate();
    gate.writing('begin');
    const waiting = gate.writesSettled(2_000);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it('has a round wait for every read under way to end, each end counted once', async () => {
    const gate = new ReadGate();
    const [first, second] = [gate.begun(), gate.begun()];
    const drained = gate.drained(5_000);
    expect(await settled(drained)).toBe(false);
    first();
    first();
    expect(await settled(drained)).toBe(false);
    second();
    expect(await settled(drained)).toBe(true);
  });

  it('has a round wait no longer than its bound for a read that does not end', async () => {
    const gate = new ReadGate();
    gate.begun();
    const drained = gate.drained(5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await settled(drained)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(drained)).toBe(true);
  });
});
