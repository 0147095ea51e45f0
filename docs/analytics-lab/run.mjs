// node run.mjs load <ch|chti|duck> <srcN> <K>        — build a store (fresh), print load time, RSS, disk
// node run.mjs bench <srcN> <K> <ch,duck|chti,duck> [--runs 7]  — the mix on existing stores, engines interleaved run by run
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { openCh } from './ch-engine.mjs';
import { openDuck } from './duck-engine.mjs';
import { QUERIES, RANGES, percentile, load, rssMiB, loopDelay } from './mix.mjs';

const [mode, a, b, c] = process.argv.slice(2);
const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
// DuckDB's memory_limit for benches: --mem, else duck-mem.txt when present (loads run with the default, 80 % of RAM).
const benchMem = () => arg('--mem', existsSync('/work/wt/analytics-lab/duck-mem.txt') ? readFileSync('/work/wt/analytics-lab/duck-mem.txt', 'utf8').trim() : null);
const open = (engine, srcN, K, KEEP) =>
  engine === 'duck' ? openDuck({ srcN, K, KEEP, MEM: KEEP ? benchMem() : arg('--mem', null) }) : openCh({ srcN, K, TI: engine === 'chti', KEEP });

if (mode === 'load') {
  const [engine, srcN, K] = [a, Number(b), Number(c)];
  const t = performance.now();
  const e = await open(engine, srcN, K, false);
  const out = { engine: e.name, N: e.N, wallS: (performance.now() - t) / 1000, rssAfterLoadMiB: rssMiB(), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), load: load(), ...e.info };
  console.log(JSON.stringify(out));
  writeFileSync(`${process.env.LAB_DIR ?? "."}/results/load-${e.name}-${e.N}.json`, JSON.stringify(out, null, 1));
  e.close();
  process.exit(0);
}

const [srcN, K, engineNames] = [Number(a), Number(b), c.split(',')];
const RUNS = Number(arg('--runs', 7));
const ONLY = arg('--only', null); // comma-separated labels of QUERIES
// --sum-overview (or sum-overview.txt present): the overview is not run again as a sequence; per run it is the sum of the
// three statements' times of that run (halves the bench's duration).
const SUM_OVERVIEW = process.argv.includes('--sum-overview') || existsSync('/work/wt/analytics-lab/sum-overview.txt');
const engines = [];
for (const name of engineNames) engines.push(await open(name, srcN, K, true));
const rssOpen = rssMiB();
const log = (...m) => console.log(`${new Date().toISOString().slice(11, 19)} load(${load()}) rss ${rssMiB()}MiB`, ...m);
log(`opened ${engines.map((e) => e.name).join(', ')} at ${srcN * K} posts`);

const results = [];
for (const [label, node] of QUERIES) {
  if (ONLY && !ONLY.split(',').includes(label)) continue;
  for (const days of RANGES) {
    const row = { label, days, loadBefore: load(), engines: {} };
    const st = engines.map((e) => e.statements(node, days));
    for (const e of engines) row.engines[e.name] = {};
    const raw = engines.map(() => ({}));
    for (const name of [...Object.keys(st[0]), ...(SUM_OVERVIEW ? [] : ['overview'])]) {
      const run = (i) =>
        name === 'overview'
          ? (async () => { for (const sql of Object.values(st[i])) await engines[i].rows(sql); })()
          : engines[i].rows(st[i][name]);
      const times = engines.map(() => []);
      const cpu = engines.map(() => []);
      const last = [];
      for (const [i] of engines.entries()) last[i] = await run(i); // warm-up
      for (let r = 0; r < RUNS; r++)
        for (const [i] of engines.entries()) {
          const t = performance.now();
          const c0 = process.cpuUsage();
          last[i] = await run(i);
          times[i].push(performance.now() - t);
          const c1 = process.cpuUsage(c0);
          cpu[i].push((c1.user + c1.system) / 1000);
        }
      for (const [i, e] of engines.entries()) {
        raw[i][name] = { times: [...times[i]], cpu: [...cpu[i]] };
        times[i].sort((x, y) => x - y);
        row.engines[e.name][name] = { p50: percentile(times[i], 50), p95: percentile(times[i], 95), times: times[i].map((x) => Math.round(x * 10) / 10), cpu: cpu[i].map((x) => Math.round(x * 10) / 10) };
        if (name === 'timeline') row.engines[e.name].matches = last[i].reduce((s, r) => s + Number(r.n), 0);
        if (name === 'authors') row.engines[e.name].authorRows = last[i].map((r) => [[true, 1, '1', 'true'].includes(r.cur), Number(r.mentions), Number(r.authors), Number(r.reach)]);
      }
    }
    if (SUM_OVERVIEW)
      for (const [i, e] of engines.entries()) {
        const t = raw[i].timeline.times.map((x, r) => x + raw[i].authors.times[r] + raw[i].top.times[r]);
        const c = raw[i].timeline.cpu.map((x, r) => x + raw[i].authors.cpu[r] + raw[i].top.cpu[r]);
        t.sort((x, y) => x - y);
        row.engines[e.name].overview = { summed: true, p50: percentile(t, 50), p95: percentile(t, 95), times: t.map((x) => Math.round(x * 10) / 10), cpu: c.map((x) => Math.round(x * 10) / 10) };
      }
    row.loadAfter = load();
    results.push(row);
    log(`${label.padEnd(13)} ${String(days).padStart(2)}d ` + engines.map((e) => {
      const x = row.engines[e.name];
      return `${e.name}: n=${x.matches} tl ${x.timeline.p95.toFixed(0)} au ${x.authors.p95.toFixed(0)} top ${x.top.p95.toFixed(0)} | ovw p50 ${x.overview.p50.toFixed(0)} p95 ${x.overview.p95.toFixed(0)}`;
    }).join('  ||  '));
  }
}

// Event-loop delay: an idle baseline under the same machine load, then each engine running its heaviest statement
// (every post's authors over 90 days) back to back for 3 s; chdb's synchronous query() once, for contrast.
const eventLoop = {};
const repeatFor = async (ms, fn) => { const end = performance.now() + ms; let n = 0; while (performance.now() < end) { await fn(); n += 1; } return n; };
eventLoop.idleBaseline = await loopDelay(() => new Promise((r) => setTimeout(r, 2000)));
log('event loop idle baseline (2 s sleep)', JSON.stringify(eventLoop.idleBaseline));
for (const e of engines) {
  const heavy = e.statements(null, 90).authors;
  let n = 0;
  eventLoop[e.name] = { async: await loopDelay(async () => { n = await repeatFor(3000, () => e.rows(heavy)); }) };
  eventLoop[e.name].async.queries = n;
  if (e.syncRows) eventLoop[e.name].sync = await loopDelay(async () => e.syncRows(heavy));
  log('event loop', e.name, JSON.stringify(eventLoop[e.name]));
}
const out = { duckMemoryLimit: benchMem(), N: srcN * K, engines: engines.map((e) => e.name), runs: RUNS, rssOpenMiB: rssOpen, rssEndMiB: rssMiB(), peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), results, eventLoop, load: load() };
writeFileSync(`${process.env.LAB_DIR ?? "."}/results/bench-${engines.map((e) => e.name).join('+')}-${srcN * K}${ONLY ? '-only' : ''}.json`, JSON.stringify(out, null, 1));
log('done');
for (const e of engines) e.close();
process.exit(0);
