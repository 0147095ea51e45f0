// The loader's spill: lines come back day by day in time order, generation order among equal times, and the
// temporary files are removed.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { TimeOrderSpill } from '@server/social/corpus/generate/time-order';

const DAY = 86_400_000;
const spillDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith('murmur-corpus-'));

describe('TimeOrderSpill', () => {
  it('returns the lines sorted by time across days, stable among equal times', () => {
    const spill = new TimeOrderSpill();
    const base = Date.UTC(2026, 0, 10);
    const times = [base + 3 * DAY + 5, base, base + 2 * DAY, base + 1, base, base + 3 * DAY, base - 1, base];
    times.forEach((time, i) => spill.add(time, `row ${i}\\twith\\ttabs\n`));
    expect(spill.size).toBe(times.length);
    const lines = [...spill.ordered()];
    spill.dispose();
    const expected = times
      .map((time, i) => ({ time, i }))
      .sort((a, b) => a.time - b.time || a.i - b.i)
      .map(({ i }) => `row ${i}\\twith\\ttabs\n`);
    expect(lines).toEqual(expected);
  });

  it('keeps every line when a day is flushed to its file several times', () => {
    const spill = new TimeOrderSpill();
    const long = 'x'.repeat(20_000);
    const count = 60; // 1.2 M characters on one day: several flushes
    for (let i = count - 1; i >= 0; i--) spill.add(Date.UTC(2026, 0, 1) + i, `${i} ${long}\n`);
    const lines = [...spill.ordered()];
    spill.dispose();
    expect(lines.map((line) => Number(line.split(' ')[0]))).toEqual([...Array(count).keys()]);
  });

  it('removes its files when disposed, also before the lines were read', () => {
    const before = new Set(spillDirs());
    const spill = new TimeOrderSpill();
    spill.add(Date.UTC(2026, 0, 1), 'a\n');
    spill.add(Date.UTC(2026, 0, 2), `${'b'.repeat(300_000)}\n`);
    const created = spillDirs().filter((name) => !before.has(name));
    expect(created).toHaveLength(1);
    spill.dispose();
    expect(existsSync(`${tmpdir()}/${created[0]}`)).toBe(false);
  });
});
