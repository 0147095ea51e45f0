// `npm run bench:insights [-- --runs 5 --ranges 7,30,90 --only overview,posts --posts 10000000]`: p50/p95 latency of
// every insights endpoint and of POST /social/discover on a bench corpus (1M posts unless --posts says otherwise),
// through app.inject in this process, with the answer cache off (every call computes). `--posts 1000000,3000000,
// 10000000` runs the same mix on each size in turn and prints the growth curve, with the bytes on disk per post.
// The corpora: scripts/bench-corpus.ts (/tmp/murmur-<size>, generated when missing); a PostgreSQL started for one is
// stopped before the next.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { DEFAULT_POSTS, openCorpus, sizeLabel } from './bench-corpus';

/**
 * What analysts type: a broad term, a hashtag, a phrase, an OR, a NOT, CJK terms, field filters; and no query at
 * all (every post: the dashboards' default, which discover does not accept).
 */
const EVERY_POST = 'every post';
const QUERIES: Array<[string, string]> = [
  ['broad term', 'nova'],
  ['hashtag', '#matchatiramisu'],
  ['phrase', '"midnight harbor"'],
  ['OR of terms', 'cloudnest OR outage OR downdetector'],
  ['NOT', 'nova NOT #unboxing'],
  ['CJK term', '노바X'],
  // Most Korean and Chinese words are one or two characters: fewer than a trigram.
  ['CJK 2 chars', '노바'],
  ['field filter', 'platform:tiktok lang:es'],
  [EVERY_POST, ''],
];
const ENDPOINTS = [
  'overview',
  'posts',
  'people',
  'performance',
  'conversation',
  'filtered-posts',
  'filtered-profiles',
  'discover',
] as const;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;

interface Options {
  runs: number;
  ranges: number[];
  endpoints: readonly (typeof ENDPOINTS)[number][];
  zone: string;
}

interface SizeResult {
  posts: number;
  bytesPerPost: number;
  /** Per endpoint: p95 over every query and range, and the slowest case. */
  p95: Map<string, { p95: number; worst: string }>;
}

/** p95 per endpoint above this is reported: 300 ms up to 1M posts, 500 ms above. */
const targetFor = (posts: number) => (posts > 1_000_000 ? 500 : 300);

async function measure(size: number, { runs, ranges, endpoints, zone }: Options): Promise<SizeResult> {
  const { url, server } = await openCorpus(size);
  const database = await connect(url);
  const config = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
    // Every call computes: a repeated request would otherwise be answered from the dashboards' cache.
    ANSWER_CACHE_MB: '0',
  });
  const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
  const app = await buildApp({ db: database.db, config, accessTokens });
  await app.ready();
  const { db } = database;
  const [user] = await db.insert(users).values({ email: 'bench-insights@example.com' }).returning();
  const [workspace] = await db
    .insert(workspaces)
    .values({ name: 'Bench insights', timeZone: zone })
    .returning();
  await db.insert(memberships).values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'viewer' });
  // Access tokens live at most 15 minutes (ACCESS_TOKEN_TTL_SECONDS) and a run on 10M posts takes longer: a new one
  // every 5 minutes.
  const signedIn = await signInAs(database.db, accessTokens, user!.id);
  let token = signedIn.accessToken;
  let signedAt = Date.now();
  const bearer = async () => {
    if (Date.now() - signedAt > 300_000)
      [token, signedAt] = [await accessTokens.sign(user!.id, signedIn.signInId), Date.now()];
    return `Bearer ${token}`;
  };

  try {
    const stats = await db.execute<{ posts: number; latest: number }>(
      sql`SELECT count(*)::int AS posts, extract(epoch FROM max(posted_at))::float8 * 1000 AS latest FROM posts`,
    );
    const posts = stats.rows[0]!.posts;
    const latest = new Date(stats.rows[0]!.latest);
    const buffers = await db.execute<{ shared_buffers: string }>(sql`SHOW shared_buffers`);
    console.log(
      `Corpus: ${posts.toLocaleString('en-US')} posts, the latest at ${latest.toISOString()}; PostgreSQL ` +
        `shared_buffers = ${buffers.rows[0]!.shared_buffers} (the heap and indexes of 1M posts take about 1.3 GB).`,
    );
    if (posts < size * 0.99)
      console.warn(
        `Warning: ${posts.toLocaleString('en-US')} posts where ${size.toLocaleString('en-US')} were expected.`,
      );
    // The corpus on disk: posts (every partition), its keys, profiles, the rollups and per-author rows.
    const disk = await db.execute<{ bytes: string }>(sql`
      SELECT sum(pg_total_relation_size(l.relid))::text AS bytes FROM pg_class c
      CROSS JOIN LATERAL pg_partition_tree(c.oid) l
      WHERE c.relname IN ('posts', 'post_keys', 'profiles', 'post_hours', 'post_days', 'post_tag_days',
        'author_post_times') AND c.relnamespace = 'public'::regnamespace AND l.isleaf`);
    const bytesPerPost = Number(disk.rows[0]!.bytes) / posts;
    console.log(
      `On disk: ${(Number(disk.rows[0]!.bytes) / 2 ** 30).toFixed(2)} GiB, ${bytesPerPost.toFixed(0)} bytes per post.`,
    );
    const to = new Date(Math.ceil(latest.getTime() / 3_600_000) * 3_600_000);

    const call = async (endpoint: string, query: string, days: number) => {
      const filters = {
        from: new Date(to.getTime() - days * 86_400_000).toISOString(),
        to: to.toISOString(),
      };
      return app.inject({
        method: 'POST',
        url: endpoint === 'discover' ? '/social/discover' : `/social/insights/${endpoint}`,
        headers: { authorization: await bearer() },
        payload: { workspace_id: workspace!.id, query, filters },
      });
    };
    const probe = await call('discover', 'nova', 7);
    const skipDiscover =
      probe.statusCode === 404 && probe.json<{ message: string }>().message.includes('No such');
    if (skipDiscover) console.log('POST /social/discover is not implemented yet: skipped.');

    console.log(
      `${runs} runs after a warm-up, per endpoint × ${QUERIES.length} queries × ranges of ${ranges.join(', ')} ` +
        `days ending ${to.toISOString()}, workspace zone ${zone}.\n`,
    );
    const summary: Array<{ endpoint: string; all: number[]; typed: number[]; worst: string }> = [];
    for (const endpoint of endpoints) {
      if (endpoint === 'discover' && skipDiscover) continue;
      const [all, typed]: [number[], number[]] = [[], []];
      let worst = { p95: 0, what: '' };
      for (const [label, query] of QUERIES) {
        if (endpoint === 'discover' && !query) continue;
        for (const days of ranges) {
          const warm = await call(endpoint, query, days);
          if (warm.statusCode !== 200) {
            console.error(`${endpoint} ${label} ${days}d: ${warm.statusCode} ${warm.body.slice(0, 300)}`);
            continue;
          }
          const times: number[] = [];
          for (let i = 0; i < runs; i += 1) {
            const started = performance.now();
            const response = await call(endpoint, query, days);
            times.push(performance.now() - started);
            if (response.statusCode !== 200) console.error(`${endpoint}: ${response.statusCode}`);
          }
          times.sort((a, b) => a - b);
          all.push(...times);
          if (label !== EVERY_POST) typed.push(...times);
          const p95 = percentile(times, 95);
          console.log(
            `${endpoint.padEnd(18)} ${label.padEnd(12)} ${String(days).padStart(3)}d  p50 ${ms(percentile(times, 50))}  p95 ${ms(p95)}`,
          );
          if (p95 > worst.p95) worst = { p95, what: `${label}, ${days} days` };
        }
      }
      for (const times of [all, typed]) times.sort((a, b) => a - b);
      summary.push({ endpoint, all, typed, worst: worst.what });
    }
    const report = (
      heading: string,
      pick: (entry: (typeof summary)[number]) => number[],
      slowest: boolean,
    ) => {
      console.log(heading);
      for (const entry of summary) {
        const times = pick(entry);
        if (!times.length) continue;
        const p95 = percentile(times, 95);
        console.log(
          `${entry.endpoint.padEnd(18)} p50 ${ms(percentile(times, 50))}  p95 ${ms(p95)}  max ${ms(times.at(-1)!)}  ` +
            `(${times.length} calls${slowest ? `; slowest: ${entry.worst}` : ''})` +
            `${p95 > targetFor(size) ? `  above the ${targetFor(size)} ms target` : ''}`,
        );
      }
    };
    report('\nPer endpoint, over every query and range:', (entry) => entry.all, true);
    report(`\nThe same without "${EVERY_POST}" (the empty query):`, (entry) => entry.typed, false);
    return {
      posts,
      bytesPerPost,
      p95: new Map(
        summary.map((entry) => [entry.endpoint, { p95: percentile(entry.all, 95), worst: entry.worst }]),
      ),
    };
  } finally {
    await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
    await db.delete(users).where(eq(users.id, user!.id));
    await app.close();
    await database.close();
    await server?.stop();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      ranges: { type: 'string', default: '7,30,90' },
      only: { type: 'string' },
      zone: { type: 'string', default: 'America/New_York' },
      posts: { type: 'string', default: String(DEFAULT_POSTS) },
    },
  });
  const sizes = values.posts.split(',').map((n) => Number(n.replace(/_/g, '')));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--posts takes whole numbers, comma-separated');
  const options: Options = {
    runs: Number(values.runs),
    ranges: values.ranges.split(',').map(Number),
    endpoints: values.only ? ENDPOINTS.filter((e) => values.only!.split(',').includes(e)) : ENDPOINTS,
    zone: values.zone,
  };
  const results: SizeResult[] = [];
  for (const size of sizes) {
    if (sizes.length > 1) console.log(`\n=== ${sizeLabel(size)} posts ===`);
    results.push(await measure(size, options));
  }
  if (results.length < 2) return;
  // The growth curve: p95 per endpoint at each size, and how many times the smallest size's.
  console.log('\nGrowth curve (p95 over every query and range, ms; × the first size):');
  const head = ['endpoint', ...results.map((r) => sizeLabel(r.posts).padStart(14))];
  console.log(head.map((h, i) => (i === 0 ? h.padEnd(18) : h)).join(' '));
  for (const endpoint of results[0]!.p95.keys()) {
    const base = results[0]!.p95.get(endpoint)!.p95;
    const cells = results.map((r) => {
      const p95 = r.p95.get(endpoint)?.p95;
      return p95 === undefined
        ? '–'.padStart(14)
        : `${p95.toFixed(0)} (${(p95 / base).toFixed(1)}×)`.padStart(14);
    });
    console.log([endpoint.padEnd(18), ...cells].join(' '));
  }
  console.log(
    ['bytes per post'.padEnd(18), ...results.map((r) => r.bytesPerPost.toFixed(0).padStart(14))].join(' '),
  );
  const last = results.at(-1)!;
  const over = [...last.p95].filter(([, v]) => v.p95 > targetFor(last.posts));
  console.log(
    over.length === 0
      ? `\nEvery endpoint's p95 at ${sizeLabel(last.posts)} is within ${targetFor(last.posts)} ms.`
      : `\nAbove ${targetFor(last.posts)} ms at ${sizeLabel(last.posts)}: ` +
          over.map(([e, v]) => `${e} ${v.p95.toFixed(0)} ms (slowest: ${v.worst})`).join('; '),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:insights failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
