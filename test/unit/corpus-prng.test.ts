import { describe, expect, it } from 'vitest';
import { Random, weighted, WeightedTable } from '@server/social/corpus/generate/prng';

const draw = (random: Random, n: number) => Array.from({ length: n }, () => random.nextUint32());

describe('seeded PRNG (sfc32)', () => {
  it('gives the same sequence for the same seed and stream', () => {
    expect(draw(new Random(42, 'posts'), 1000)).toEqual(draw(new Random(42, 'posts'), 1000));
  });

  it('gives different sequences for other seeds or streams', () => {
    const base = draw(new Random(42, 'posts'), 50);
    expect(draw(new Random(43, 'posts'), 50)).not.toEqual(base);
    expect(draw(new Random(42, 'profiles'), 50)).not.toEqual(base);
  });

  it('pins the first values (a change of algorithm would change every corpus)', () => {
    expect(draw(new Random(1), 3)).toMatchInlineSnapshot(`
      [
        3773806752,
        188501479,
        1512380885,
      ]
    `);
  });

  it('draws uniform values in [0, 1) and integers in range', () => {
    const random = new Random(7);
    let sum = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const x = random.next();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(sum / n).toBeCloseTo(0.5, 2);
    const counts = new Array(6).fill(0) as number[];
    for (let i = 0; i < 60_000; i++) counts[random.int(1, 6) - 1]! += 1;
    for (const c of counts) expect(c).toBeGreaterThan(9_400);
  });

  it('draws normal, log-normal and Pareto values with the right shape', () => {
    const random = new Random(11);
    const n = 50_000;
    const normals = Array.from({ length: n }, () => random.normal());
    const mean = normals.reduce((a, b) => a + b, 0) / n;
    const variance = normals.reduce((a, b) => a + (b - mean) ** 2, 0) / n;
    expect(mean).toBeCloseTo(0, 1);
    expect(variance).toBeCloseTo(1, 1);
    // Pareto(xm = 1, alpha = 2): P(X > 10) = 1%.
    const tail = Array.from({ length: n }, () => random.pareto(1, 2)).filter((x) => x > 10).length / n;
    expect(tail).toBeGreaterThan(0.007);
    expect(tail).toBeLessThan(0.013);
    const logNormals = Array.from({ length: n }, () => random.logNormal(Math.log(100), 1)).sort(
      (a, b) => a - b,
    );
    expect(logNormals[n / 2]).toBeGreaterThan(90);
    expect(logNormals[n / 2]).toBeLessThan(110);
  });

  it('samples weighted tables in proportion', () => {
    const random = new Random(5);
    const table = weighted({ a: 1, b: 3, c: 0 });
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 40_000; i++) counts[table.sample(random)] += 1;
    expect(counts.c).toBe(0);
    expect(counts.b / counts.a).toBeGreaterThan(2.8);
    expect(counts.b / counts.a).toBeLessThan(3.2);
    expect(() => new WeightedTable(['x'], [0])).toThrow();
  });
});
