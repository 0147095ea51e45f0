// `npm run bench:explain [-- --posts 10000000 --runs 5 --queries "every post,OR of terms"]`: p50/p95 latency of "Why
// this spike" (POST /social/insights/drivers) on a bench corpus (bench-corpus.ts: 1M posts unless --posts says
// otherwise), through app.inject with the answer cache off: for hour windows (against the same hours of the 7 days
// before), day windows (the same), and 7- and 30-day windows (against the range before), ending at the corpus's newest
// hour.
// Then themes of a range (POST /social/insights/themes) over 30 and 90 days. Then the issue's targets (a spike's
// drivers at 10M posts ≤ 1 s p95, a 30-day range's themes ≤ 2 s), met or not, with the load averages before and after. Each window is asked anew each run (a different hour or day), so no statement is answered twice alike.
import { parseArgs } from 'node:util';
import { loadLine } from './bench-cpu';
import { countStoreReads, DEFAULT_POSTS, sizeLabel } from './bench-corpus';
import { openBenchApp } from './bench-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const QUERIES: Array<[string, string]> = [
  ['every post', ''],
  ['broad term', 'nova'],
  ['OR of terms', 'cloudnest OR outage OR downdetector'],
  ['field filter', 'platform:tiktok lang:es'],
];
const WINDOWS: Array<[string, number]> = [
  ['an hour', HOUR],
  ['a day', DAY],
  ['7 days', 7 * DAY],
  // The conversation's "Why this range" over its default range.
  ['30 days', 30 * DAY],
];
/** The target at 10M posts, p95 of a spike's (a bucket's: an hour or a day) drivers. */
const TARGET_MS = 1_000;
const TARGET_POSTS = 10_000_000;
/** The target at 10M posts, p95 of a 30-day range's themes. */
const THEMES_TARGET_MS = 2_000;

const percentile = (times: number[], p: number) => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: String(DEFAULT_POSTS) },
    runs: { type: 'string', default: '5' },
    queries: { type: 'string' },
    zone: { type: 'string', default: 'UTC' },
  },
});
const size = Number(values.posts);
const runs = Number(values.runs);
const queries = values.queries
  ? QUERIES.filter(([label]) => values.queries!.split(',').includes(label))
  : QUERIES;
if (!Number.isInteger(size) || size <= 0 || !Number.isInteger(runs) || runs <= 0 || !queries.length) {
  console.error('Usage: npm run bench:explain -- [--posts N] [--runs N] [--queries "every post,broad term"]');
  process.exit(2);
}

console.log(`Before: ${loadLine()}`);
const bench = await openBenchApp(size, values.zone, 'bench-explain');
try {
  const storeReads = countStoreReads(bench.service, () => {});
  const end = Math.floor(bench.latest.getTime() / HOUR) * HOUR;
  console.log(
    `Corpus ${sizeLabel(size)}: ${bench.posts.toLocaleString('en-US')} posts, the newest at ` +
      `${bench.latest.toISOString()}; ${runs} runs after a warm-up, each a window one hour (or day) before the last.\n`,
  );
  const spikeTimes: number[] = [];
  for (const [label, query] of queries) {
    for (const [name, length] of WINDOWS) {
      const times: number[] = [];
      const inStore: number[] = [];
      let drivers = 0;
      // Warm-up, then `runs` windows, each one step (an hour or a day) before the last.
      for (let i = 0; i <= runs; i += 1) {
        const step = length <= DAY ? length : DAY;
        const to = end - i * step;
        const payload = {
          workspace_id: bench.workspaceId,
          query,
          filters: { from: new Date(to - length).toISOString(), to: new Date(to).toISOString() },
        };
        const busy = storeReads.busyMs;
        const started = performance.now();
        const response = await bench.app.inject({
          method: 'POST',
          url: '/social/insights/drivers',
          headers: { authorization: await bench.bearer() },
          payload,
        });
        const took = performance.now() - started;
        if (response.statusCode !== 200) {
          console.error(`${label} ${name}: ${response.statusCode} ${response.body.slice(0, 300)}`);
          break;
        }
        if (i === 0) continue;
        times.push(took);
        inStore.push(storeReads.busyMs - busy);
        drivers += response.json<{ drivers: unknown[] }>().drivers.length;
      }
      if (!times.length) continue;
      if (length <= DAY) spikeTimes.push(...times);
      console.log(
        `drivers ${label.padEnd(13)} ${name.padEnd(8)} p50 ${ms(percentile(times, 50))}  p95 ` +
          `${ms(percentile(times, 95))}  in the store ${ms(percentile(inStore, 50))}  ` +
          `(${(drivers / times.length).toFixed(1)} drivers a call)`,
      );
    }
  }
  // Themes of the range (POST /social/insights/themes) over 30 and 90 days, each run a range one day before the last.
  const themeTimes: number[] = [];
  for (const [label, query] of queries) {
    for (const days of [30, 90]) {
      const times: number[] = [];
      let themes = 0;
      for (let i = 0; i <= runs; i += 1) {
        const to = end - i * DAY;
        const started = performance.now();
        const response = await bench.app.inject({
          method: 'POST',
          url: '/social/insights/themes',
          headers: { authorization: await bench.bearer() },
          payload: {
            workspace_id: bench.workspaceId,
            query,
            filters: { from: new Date(to - days * DAY).toISOString(), to: new Date(to).toISOString() },
          },
        });
        const took = performance.now() - started;
        if (response.statusCode !== 200) {
          console.error(`themes ${label} ${days}d: ${response.statusCode} ${response.body.slice(0, 300)}`);
          break;
        }
        if (i === 0) continue;
        times.push(took);
        themes += response.json<{ themes: unknown[] }>().themes.length;
      }
      if (!times.length) continue;
      if (days === 30) themeTimes.push(...times);
      console.log(
        `themes  ${label.padEnd(13)} ${`${days} days`.padEnd(8)} p50 ${ms(percentile(times, 50))}  p95 ` +
          `${ms(percentile(times, 95))}  (${(themes / times.length).toFixed(1)} themes a call)`,
      );
    }
  }
  if (spikeTimes.length) {
    const p95 = percentile(spikeTimes, 95);
    const at = bench.posts >= TARGET_POSTS * 0.99 ? '' : ` (measured at ${sizeLabel(bench.posts)}, not 10M)`;
    console.log(
      `\nTarget: a spike's drivers (an hour's or a day's) ≤ ${TARGET_MS} ms p95 at 10M posts: p95 ${ms(p95).trim()}` +
        ` — ${p95 <= TARGET_MS ? 'met' : 'missed'}${at}.`,
    );
  }
  if (themeTimes.length) {
    const p95 = percentile(themeTimes, 95);
    const at = bench.posts >= TARGET_POSTS * 0.99 ? '' : ` (measured at ${sizeLabel(bench.posts)}, not 10M)`;
    console.log(
      `Target: a 30-day range's themes ≤ ${THEMES_TARGET_MS} ms p95 at 10M posts: p95 ${ms(p95).trim()}` +
        ` — ${p95 <= THEMES_TARGET_MS ? 'met' : 'missed'}${at}.`,
    );
  }
} finally {
  await bench.close();
  console.log(`After: ${loadLine()}`);
}
