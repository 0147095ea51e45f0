// `npm run bench:match [-- --queries 1000 --posts 20000 --check 1000 --passes 5 --seed 7]`: the many-query matcher
// (server/query/match) on one core: `--queries` tracked queries (scripts/bench-match-queries.ts: brand words,
// hashtags, phrases, OR lists, NOT, prefixes, CJK, emoji, field filters, NEAR) over a firehose-shaped sample of
// `--posts` posts (the corpus generator's, in memory: four languages, six platforms, its authors), each post tested
// against all the queries at once, single-threaded, after a warm-up. Prints posts per second (wall clock, and per
// CPU second of this process: the figure that compares on a shared machine), matches per post, the compile time and
// the matcher's memory, the load average, and the agreement with the reference evaluator
// (test/support/reference/query.ts, the oracle the store is held to) on the first `--check` posts: it must be 100 %,
// or the run exits with 1.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseArgs } from 'node:util';
import { parseQuery } from '@server/query/index';
import { compileMatcher, type MatchPost, type TrackedQuery } from '@server/query/match/index';
import { planCorpus } from '@server/social/corpus/generate/plan';
import { matchPostOf, refPost, referenceIds } from '@test/support/matcher-oracle';
import type { RefPost } from '@test/support/reference/query';
import { loadLine } from './bench-cpu';
import { trackedQueryTexts } from './bench-match-queries';

const { values } = parseArgs({
  options: {
    queries: { type: 'string', default: '1000' },
    posts: { type: 'string', default: '20000' },
    check: { type: 'string', default: '1000' },
    passes: { type: 'string', default: '5' },
    seed: { type: 'string', default: '7' },
  },
});
const [queryCount, postCount, checkCount, passes, seed] = [
  values.queries,
  values.posts,
  values.check,
  values.passes,
  values.seed,
].map(Number) as [number, number, number, number, number];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
const cpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
const format = (n: number) => Math.round(n).toLocaleString('en-US');

console.log(`bench:match — ${loadLine()}`);
const plan = planCorpus({ posts: postCount, seed, end: Date.parse('2026-11-01T00:00:00Z') });
const refPosts: RefPost[] = [...plan.posts()].map((post, id) => {
  const author = plan.profiles[post.authorIndex]!;
  return refPost({
    id,
    text: post.text,
    platform: post.platform,
    language: post.language,
    hashtags: post.hashtags,
    mentions: post.mentions,
    handle: author.handle,
    country: author.country,
  });
});
const posts: MatchPost[] = refPosts.map(matchPostOf);
const chars = posts.reduce((sum, post) => sum + post.text.length, 0);
console.log(
  `sample: ${format(posts.length)} posts (seed ${seed}), ${(chars / posts.length).toFixed(0)} characters a post`,
);

const queries: TrackedQuery[] = trackedQueryTexts(refPosts, queryCount, seed).map((text, i) => {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.errors[0]!.message}`);
  return { id: `q${i}`, ast: parsed.ast };
});

const heapBefore = heapMb();
let started = performance.now();
const matcher = compileMatcher(queries);
const compileMs = performance.now() - started;
const matcherMb = heapMb() - heapBefore;
console.log(
  `compiled ${format(queries.length)} queries in ${compileMs.toFixed(1)} ms, ${matcherMb.toFixed(1)} MB of heap; ` +
    `${matcher.alwaysTested} without a term to index (tested on every post)`,
);

// Warm-up: the closures and the index's maps optimised before the clock starts.
for (let i = 0; i < Math.min(posts.length, 5000); i++) matcher.match(posts[i]!);

const rates: Array<{ wall: number; cpu: number }> = [];
let matches = 0;
let tested = 0;
for (let pass = 0; pass < passes; pass++) {
  matches = 0;
  tested = matcher.tested;
  const [wall0, cpu0] = [performance.now(), cpuSeconds()];
  for (const post of posts) matches += matcher.match(post).length;
  const [wall, cpu] = [(performance.now() - wall0) / 1000, cpuSeconds() - cpu0];
  tested = matcher.tested - tested;
  rates.push({ wall: posts.length / wall, cpu: posts.length / cpu });
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wallRate = median(rates.map((r) => r.wall));
const cpuRate = median(rates.map((r) => r.cpu));
console.log(
  `matched: ${format(wallRate)} posts/s (median of ${passes} passes; best ${format(Math.max(...rates.map((r) => r.wall)))}), ` +
    `${format(cpuRate)} posts per CPU second, ${(matches / posts.length).toFixed(2)} matches a post, ` +
    `${(tested / posts.length).toFixed(1)} queries tested exactly a post — ${loadLine()}`,
);

// Agreement: each query's matches among the first posts, by the reference evaluator, one query at a time.
started = performance.now();
const checked = refPosts.slice(0, checkCount);
let [pairs, agreeing, expectedMatches] = [0, 0, 0];
const disagreements: string[] = [];
for (const post of checked) {
  const expected = new Set(referenceIds(queries, post));
  const got = new Set(matcher.match(matchPostOf(post)));
  expectedMatches += expected.size;
  for (const query of queries) {
    pairs += 1;
    if (expected.has(query.id) === got.has(query.id)) agreeing += 1;
    else if (disagreements.length < 5)
      disagreements.push(`post ${post.id} ${JSON.stringify(post.text)}, ${query.id}`);
  }
}
const agreement = (100 * agreeing) / pairs;
console.log(
  `agreement with the reference evaluator: ${agreement.toFixed(3)} % of ${format(pairs)} (post, query) pairs ` +
    `(${checked.length} posts × ${queries.length} queries, ${format(expectedMatches)} matches; ` +
    `${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
for (const line of disagreements) console.log(`  differs: ${line}`);
if (agreeing !== pairs) process.exitCode = 1;
