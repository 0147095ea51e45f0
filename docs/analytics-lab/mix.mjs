// The bench query mix (after scripts/bench-insights.ts's QUERIES) as engine-neutral trees, the ranges and the zone,
// and the timing helpers shared by ch.mjs and duck.mjs.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';

export const END = Date.UTC(2026, 10, 1); // the corpus window's end (gen.mts)
export const DAYS = 180;
export const START = END - DAYS * 86_400_000;
export const ZONE = 'America/New_York';
export const RANGES = [30, 90];
export const Q15 = 900_000; // 15 minutes in ms
/** DATA_TAG=p: the corpus has adjacent-pair tokens (gen.mts --pairs); a phrase is then its pairs, no text recheck. */
export const TAG = process.env.DATA_TAG ?? '';
export const PAIRS = TAG === 'p';
const pairsOf = (ws) => ws.slice(1).map((w, i) => '\x03' + ws[i] + '\x04' + w);

const term = (w) => ({ t: 'term', w });
const tag = (v) => ({ t: 'term', w: '\x02' + v });
// Leaves: term (a lexeme token), phrase (its words' tokens, then a regex recheck of the text), sub (CJK grams, then a
// case-insensitive substring recheck), field (platform/lang only: no token).
export const QUERIES = [
  ['broad term', term('nova')],
  ['hashtag', tag('matchatiramisu')],
  ['phrase', { t: 'phrase', ws: ['midnight', 'harbor'], re: '(?i)\\bmidnight\\W+harbor\\b' }],
  ['OR of terms', { t: 'or', ops: [term('cloudnest'), term('outage'), term('downdetector')] }],
  ['AND', { t: 'and', ops: [term('nova'), term('battery')] }],
  ['NOT', { t: 'and', ops: [term('nova'), { t: 'not', op: tag('unboxing') }] }],
  ['CJK term', { t: 'sub', grams: ['\x01노바'], like: '노바x' }],
  ['CJK 2 chars', { t: 'sub', grams: ['\x01노바'], like: '노바' }],
  ['field filter', { t: 'field', platform: 'tiktok', lang: 'es' }],
  ['every post', null],
];

/** Every token string a tree needs hashed. */
export function tokensOf(node, out = new Set()) {
  if (!node) return out;
  switch (node.t) {
    case 'term': out.add(node.w); break;
    case 'phrase': (PAIRS ? pairsOf(node.ws) : node.ws).forEach((w) => out.add(w)); break;
    case 'sub': node.grams.forEach((g) => out.add(g)); break;
    case 'and': case 'or': node.ops.forEach((o) => tokensOf(o, out)); break;
    case 'not': tokensOf(node.op, out); break;
  }
  return out;
}

/**
 * A tree as (set, cond): `set` a SQL returning the matching post ids over [lo, hi) from the token table (null: no
 * token condition), `cond` a SQL condition on the posts' own columns (null: none). The caller's dialect supplies
 * tokSet(hash, lo, hi), regex(col, re), ilike(col, s).
 */
export function compile(node, d, lo, hi, H) {
  if (!node) return { set: null, cond: null };
  switch (node.t) {
    case 'term': return { set: d.tokSet(H.get(node.w), lo, hi), cond: null };
    case 'phrase':
      if (PAIRS) return { set: pairsOf(node.ws).map((w) => `(${d.tokSet(H.get(w), lo, hi)})`).join(' INTERSECT '), cond: null };
      return { set: node.ws.map((w) => `(${d.tokSet(H.get(w), lo, hi)})`).join(' INTERSECT '), cond: d.regex('text', node.re) };
    case 'sub':
      return { set: node.grams.map((g) => `(${d.tokSet(H.get(g), lo, hi)})`).join(' INTERSECT '), cond: d.ilike('text', node.like) };
    case 'field': return { set: null, cond: `platform = '${node.platform}' AND lang = '${node.lang}'` };
    case 'or': return { set: node.ops.map((o) => `(${compile(o, d, lo, hi, H).set})`).join(` ${d.union} `), cond: null };
    case 'and': {
      const pos = node.ops.filter((o) => o.t !== 'not').map((o) => `(${compile(o, d, lo, hi, H).set})`);
      const neg = node.ops.filter((o) => o.t === 'not').map((o) => `(${compile(o.op, d, lo, hi, H).set})`);
      return { set: pos.join(' INTERSECT ') + neg.map((n) => ` EXCEPT ${n}`).join(''), cond: null };
    }
  }
  throw new Error(`unsupported ${node.t}`);
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
export const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
export const rssMiB = () => Math.round(process.memoryUsage().rss / 2 ** 20);

/** Times `fn` `runs` times after one warm-up: sorted ms and the last result. */
export async function timeIt(fn, runs) {
  let result = await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { times, result };
}

/** Event-loop delay while `fn` runs (a heavy query): max and p99 in ms, and how long fn took. */
export async function loopDelay(fn) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  // a 5 ms timer ticking beside it: how many ticks fire while the query runs
  let ticks = 0;
  const timer = setInterval(() => { ticks += 1; }, 5);
  h.enable();
  const t = performance.now();
  await fn();
  const took = performance.now() - t;
  h.disable();
  clearInterval(timer);
  return { took, maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, ticks, expectedTicks: Math.floor(took / 5) };
}
