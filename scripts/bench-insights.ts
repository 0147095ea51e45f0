// `npm run bench:insights [-- --runs 5 --ranges 7,30,90 --only overview,posts]`: p50/p95 latency of every insights
// endpoint (and of POST /social/discover when it exists) on a 1M-post corpus, through app.inject in this process.
// The corpus: scripts/bench-corpus.ts (/tmp/murmur-1m unless BENCH_DATA_DIR says otherwise, generated when missing);
// a PostgreSQL started for it is stopped here.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '../server/app';
import { loadServerConfig } from '../server/config';
import { connect } from '../server/db/database';
import { memberships, users, workspaces } from '../server/db/schema';
import { createAccessTokens } from '../server/auth/access-token';
import { openCorpus } from './bench-corpus';

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

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      ranges: { type: 'string', default: '7,30,90' },
      only: { type: 'string' },
      zone: { type: 'string', default: 'America/New_York' },
    },
  });
  const runs = Number(values.runs);
  const ranges = values.ranges.split(',').map(Number);
  const endpoints = values.only ? ENDPOINTS.filter((e) => values.only!.split(',').includes(e)) : ENDPOINTS;

  const { url, server } = await openCorpus();
  const database = await connect(url);
  const config = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
  });
  const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
  const app = await buildApp({ db: database.db, config, accessTokens });
  await app.ready();
  const { db } = database;
  const [user] = await db.insert(users).values({ email: 'bench-insights@example.com' }).returning();
  const [workspace] = await db
    .insert(workspaces)
    .values({ name: 'Bench insights', timeZone: values.zone })
    .returning();
  await db.insert(memberships).values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'viewer' });
  const token = await accessTokens.sign(user!.id);

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
    if (posts < 1_000_000)
      console.warn(`Warning: fewer than 1,000,000 posts; the figures are not comparable.`);
    const to = new Date(Math.ceil(latest.getTime() / 3_600_000) * 3_600_000);

    const call = (endpoint: string, query: string, days: number) => {
      const filters = {
        from: new Date(to.getTime() - days * 86_400_000).toISOString(),
        to: to.toISOString(),
      };
      return app.inject({
        method: 'POST',
        url: endpoint === 'discover' ? '/social/discover' : `/social/insights/${endpoint}`,
        headers: { authorization: `Bearer ${token}` },
        payload: { workspace_id: workspace!.id, query, filters },
      });
    };
    const probe = await call('discover', 'nova', 7);
    const skipDiscover =
      probe.statusCode === 404 && probe.json<{ message: string }>().message.includes('No such');
    if (skipDiscover) console.log('POST /social/discover is not implemented yet: skipped.');

    console.log(
      `${runs} runs after a warm-up, per endpoint × ${QUERIES.length} queries × ranges of ${ranges.join(', ')} ` +
        `days ending ${to.toISOString()}, workspace zone ${values.zone}.\n`,
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
            `${p95 > 300 ? '  above the 300 ms target' : ''}`,
        );
      }
    };
    report('\nPer endpoint, over every query and range:', (entry) => entry.all, true);
    report(`\nThe same without "${EVERY_POST}" (the empty query):`, (entry) => entry.typed, false);
  } finally {
    await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
    await db.delete(users).where(eq(users.id, user!.id));
    await app.close();
    await database.close();
    await server?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:insights failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
