// node report.mjs results/bench-*.json … : markdown tables (overview = timeline + authors + top posts, sequential) and
// the issue's rule: p95 over the mix (all overview runs of every query and range) per engine, and the ratio.
import { readFileSync } from 'node:fs';
import { percentile } from './mix.mjs';

for (const path of process.argv.slice(2)) {
  const b = JSON.parse(readFileSync(path, 'utf8'));
  const [A, B] = b.engines;
  console.log(`\n### ${b.N.toLocaleString('en-US')} posts — ${b.engines.join(' vs ')} (${b.runs} runs after a warm-up, interleaved; ms)\n`);
  console.log(`| query | days | matches | ${A} overview p50 / p95 | ${B} overview p50 / p95 | ${A} tl / au / top p95 | ${B} tl / au / top p95 | load before → after |`);
  console.log('|---|---|---|---|---|---|---|---|');
  const cpuAll = { [A]: [], [B]: [] }, all = { [A]: [], [B]: [] }, typed = { [A]: [], [B]: [] };
  const stmt = { [A]: { timeline: [], authors: [], top: [] }, [B]: { timeline: [], authors: [], top: [] } };
  let mismatch = 0;
  for (const r of b.results) {
    const [a, c] = [r.engines[A], r.engines[B]];
    if (a.matches !== c.matches || JSON.stringify(a.authorRows) !== JSON.stringify(c.authorRows)) mismatch += 1;
    const f = (x) => `${x.p50.toFixed(0)} / ${x.p95.toFixed(0)}${x.cpu ? ` (cpu ${percentile([...x.cpu].sort((m, n) => m - n), 50).toFixed(0)})` : ''}`;
    const s = (x) => `${x.timeline.p95.toFixed(0)} / ${x.authors.p95.toFixed(0)} / ${x.top.p95.toFixed(0)}`;
    console.log(`| ${r.label} | ${r.days} | ${a.matches}${a.matches !== c.matches ? ` ≠ ${c.matches}` : ''} | ${f(a.overview)} | ${f(c.overview)} | ${s(a)} | ${s(c)} | ${r.loadBefore.split(' ')[0]} → ${r.loadAfter.split(' ')[0]} |`);
    for (const [e, x] of [[A, a], [B, c]]) {
      if (!x.overview.times) continue;
      all[e].push(...x.overview.times);
      if (x.overview.cpu) cpuAll[e].push(...x.overview.cpu);
      if (r.label !== 'every post') typed[e].push(...x.overview.times);
      for (const k of ['timeline', 'authors', 'top']) stmt[e][k].push(...x[k].times);
    }
  }
  const p = (xs, q) => (xs.length ? percentile([...xs].sort((x, y) => x - y), q).toFixed(0) : 'n/a');
  console.log(`\nMix (all ${all[A].length} overview runs per engine): ${A} p50 ${p(all[A], 50)} p95 ${p(all[A], 95)} ms; ${B} p50 ${p(all[B], 50)} p95 ${p(all[B], 95)} ms; ` +
    `ratio ${A}/${B} p95 = ${(Number(p(all[A], 95)) / Number(p(all[B], 95))).toFixed(2)}×`);
  if (cpuAll[A].length) console.log(`Process CPU time per overview over the mix (robust to other load): ${A} p50 ${p(cpuAll[A], 50)} p95 ${p(cpuAll[A], 95)} ms; ${B} p50 ${p(cpuAll[B], 50)} p95 ${p(cpuAll[B], 95)} ms.`);
  console.log(`Typed queries only: ${A} p95 ${p(typed[A], 95)}; ${B} p95 ${p(typed[B], 95)} ms.`);
  for (const k of ['timeline', 'authors', 'top'])
    console.log(`Statement ${k} over the mix: ${A} p50 ${p(stmt[A][k], 50)} p95 ${p(stmt[A][k], 95)}; ${B} p50 ${p(stmt[B][k], 50)} p95 ${p(stmt[B][k], 95)} ms.`);
  console.log(`Match counts and per-period author figures (mentions, unique authors, reach) ${mismatch ? `DIFFER in ${mismatch} cases` : 'equal in every case'}.`);
  console.log(`RSS (both engines in one process): open ${b.rssOpenMiB} MiB, end ${b.rssEndMiB} MiB, peak ${b.peakRssMiB} MiB. Load at end: ${b.load}.`);
  if (b.eventLoop.idleBaseline) { const x = b.eventLoop.idleBaseline; console.log(`Event loop idle baseline (2 s sleep, same load): max delay ${x.maxMs.toFixed(1)} ms, p99 ${x.p99Ms.toFixed(1)} ms`); }
  for (const [e, v] of Object.entries(b.eventLoop).filter(([k]) => k !== 'idleBaseline'))
    console.log(`Event loop, ${e}: ${Object.entries(v).map(([k, x]) => `${k}: query ${x.took.toFixed(0)} ms, max delay ${x.maxMs.toFixed(1)} ms, p99 ${x.p99Ms.toFixed(1)} ms${x.queries ? ` (${x.queries} queries back to back)` : ''}, 5-ms timer fired ${x.ticks}/${x.expectedTicks}`).join('; ')}`);
}
