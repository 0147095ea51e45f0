// node ratios.mjs results/bench-….json: per-case p50 ratio A/B, their geometric mean, and p95 of the mix under a few definitions
import { readFileSync } from 'node:fs';
import { percentile } from './mix.mjs';
for (const path of process.argv.slice(2)) {
  const b = JSON.parse(readFileSync(path, 'utf8'));
  const [A, B] = b.engines;
  const r = b.results.map((x) => x.engines[A].overview.p50 / x.engines[B].overview.p50);
  const geo = Math.exp(r.reduce((s, x) => s + Math.log(x), 0) / r.length);
  const p = (e, f) => { const xs = b.results.filter(f).flatMap((x) => x.engines[e].overview.times ?? []).sort((m, n) => m - n); return xs.length ? percentile(xs, 95) : NaN; };
  const pp = (e, f) => { const xs = b.results.filter(f).map((x) => x.engines[e].overview.p95).sort((m, n) => m - n); return percentile(xs, 95); };
  const all = () => true, typed = (x) => x.label !== 'every post';
  console.log(`${path}: ${A}/${B} p50 ratio per case min ${Math.min(...r).toFixed(2)} max ${Math.max(...r).toFixed(2)} geomean ${geo.toFixed(2)}; ` +
    `${A} faster in ${r.filter((x) => x < 1).length}/${r.length} cases. p95 of all runs: ${(p(A, all) / p(B, all)).toFixed(2)}× (${p(A, all).toFixed(0)} vs ${p(B, all).toFixed(0)}); typed only ${(p(A, typed) / p(B, typed)).toFixed(2)}× (${p(A, typed).toFixed(0)} vs ${p(B, typed).toFixed(0)}); ` +
    `p95 of per-case p95s ${(pp(A, all) / pp(B, all)).toFixed(2)}× (${pp(A, all).toFixed(0)} vs ${pp(B, all).toFixed(0)}); max case p95 ${Math.max(...b.results.map((x) => x.engines[A].overview.p95)).toFixed(0)} vs ${Math.max(...b.results.map((x) => x.engines[B].overview.p95)).toFixed(0)}`);
}
