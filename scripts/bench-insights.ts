// `npm run bench:insights [-- --runs 5 --ranges 7,30,90 --only overview,posts --posts 10000000 --engine
// postgres,store --queries "CJK term,phrase" --trace --refine hashtag:#coffee]`: p50/p95 latency of every insights endpoint and of POST
// /social/discover on a bench corpus (1M posts unless --posts says otherwise; every query of the mix unless
// --queries names some by label), through app.inject in this process, with the answer cache off (every call
// computes).
//
// Engines (`--engine`, both by default): `postgres` is the app given no analytics store, so every route answers from
// PostgreSQL; `store` is the app given the corpus's analytics store (server/analytics/service.ts, started as `npm
// start` starts it on <corpus>/analytics beside pg/; rebuilt when missing or of an older layout, with its progress
// lines, and kept for the next run), measured once it has caught up. Whatever each route reads with the store there
// is what is measured: routes not on the store yet answer from PostgreSQL in both columns. Both engines run on the
// same app, interleaved call by call (postgres, store, postgres, store…) so that the machine's load falls on both
// alike. Each call is known to be answered by the store or not (countStoreReads: the service found the store
// unchanged after the call's figures); a store call the store did not answer was answered from PostgreSQL, and the row
// says so (as it says of a postgres call the store answered). The two engines' warm-up
// answers are compared (numbers to 12 significant digits, cursors aside) and a difference is printed.
//
// Printed per size: the load averages (as `uptime` prints them) before and after; per endpoint × query × range, each
// engine's p50 and p95, store ÷ postgres, the p50 of the time the store was busy with a call's statements (the rest of
// a store call is PostgreSQL's part, the corpus version, the query's words and the posts and people looked up, and
// this process's) and how many store calls the store answered; per endpoint the same over every query and range, and
// without "every post"; then the issue's targets per engine (at 10M: every typed dashboard query over 30 and 90 days
// ≤ 500 ms p95, every post over 90 days ≤ 800 ms, discover ≤ 500 ms), each met or not. `--posts 1000000,3000000,
// 10000000` runs the same mix on each size in turn and prints the growth curve per engine, with the bytes on disk per
// post of PostgreSQL and of the store. `--trace` prints, under each case, every timed store call's statements in the
// order they were sent: when each started after the call began, how long it ran, and its first words. `--refine
// field:value[|value…]` adds that refinement to every dashboard's call (a drill-down: `hashtag:#coffee`,
// `domain:example.com`; discover has none). `--platforms x,tiktok` and `--languages en,es` add those filters to every
// call.
// The corpora: scripts/bench-corpus.ts (/tmp/murmur-<size>, generated when missing); a PostgreSQL started for one is
// stopped before the next, and so is its store.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { STORE_DATABASE } from '@server/analytics/layout';
import type { AnalyticsService } from '@server/analytics/service';
import { loadLine } from './bench-cpu';
import { countStoreReads, DEFAULT_POSTS, openCorpus, sizeLabel, startCorpusStore } from './bench-corpus';

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
type Endpoint = (typeof ENDPOINTS)[number];
const ENGINES = ['postgres', 'store'] as const;
type Engine = (typeof ENGINES)[number];

/** The issue's targets (at 10M posts), in ms of p95. */
const TARGETS = { typed: 500, everyPost: 800, discover: 500 };
const TARGET_POSTS = 10_000_000;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sorted = (times: number[]) => [...times].sort((a, b) => a - b);
const ms = (n: number) => `${n.toFixed(0).padStart(5)} ms`;

interface Options {
  runs: number;
  ranges: number[];
  endpoints: readonly Endpoint[];
  engines: readonly Engine[];
  zone: string;
  /** The queries measured, by label (every one by default). */
  queries: ReadonlyArray<readonly [string, string]>;
  /** Print each timed store call's statements (`--trace`). */
  trace: boolean;
  /** A refinement added to every call (`--refine`). */
  refine?: { field: string; values: string[] };
  /** The platforms and languages filters of every call (`--platforms`, `--languages`). */
  platforms?: string[];
  languages?: string[];
}

/** A statement sent during a call: ms after the call began, ms it ran, its first words. */
interface Traced {
  at: number;
  ms: number;
  sql: string;
}

/** A statement's first words, its whitespace collapsed (what names it in a trace). */
const firstWords = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 110);

/** One endpoint × query × range: each engine's timed calls, and how many of them the store answered. */
interface Case {
  endpoint: Endpoint;
  label: string;
  days: number;
  times: Record<Engine, number[]>;
  fromStore: Record<Engine, number>;
  /** The store engine's calls that read the store: how long the store was busy with their statements. */
  storeMs: number[];
}

interface SizeResult {
  posts: number;
  bytesPerPost: number;
  storeBytesPerPost: number | null;
  /** Per engine and endpoint: p95 over every query and range, and the slowest case. */
  p95: Map<Engine, Map<Endpoint, { p95: number; worst: string }>>;
}

/**
 * Whether two answers agree: numbers to 12 significant digits (float sums in another order), cursors and data_as_of
 * aside (sealed anew on every call); the first path where they differ, or null.
 */
function difference(a: unknown, b: unknown, path = ''): string | null {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || a.toPrecision(12) === b.toPrecision(12) ? null : `${path || '.'}: ${a} ≠ ${b}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} items ≠ ${b.length}`;
    for (let i = 0; i < a.length; i += 1) {
      const found = difference(a[i], b[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      if (key === 'next_cursor' || key === 'data_as_of') continue;
      const found = difference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (found) return found;
    }
    return null;
  }
  return a === b ? null : `${path || '.'}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
}

async function measure(
  size: number,
  { runs, ranges, endpoints, engines, zone, queries, trace, refine, platforms, languages }: Options,
): Promise<SizeResult> {
  console.log(`Before: ${loadLine()}`);
  const { url, server, dataDir } = await openCorpus(size);
  const database = await connect(url);
  const config = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
    // Every call computes: a repeated request would otherwise be answered from the dashboards' cache.
    ANSWER_CACHE_MB: '0',
    ANALYTICS_MAX_THREADS: process.env.ANALYTICS_MAX_THREADS,
  });
  let service: AnalyticsService | null = null;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let cleanUp = async () => {};
  try {
    // The store before the app, as `npm start` does after its seeding: a rebuild reads PostgreSQL's snapshot.
    if (engines.includes('store')) service = await startCorpusStore(dataDir, database, config);
    // The statements of the call being timed (--trace), by when they were sent.
    let traced: Traced[] | null = null;
    let callStarted = 0;
    const storeReads = service
      ? countStoreReads(service, (text, startedAt, took) =>
          traced?.push({ at: startedAt - callStarted, ms: took, sql: firstWords(text) }),
        )
      : { statements: 0, busyMs: 0, answered: 0 };
    const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
    app = await buildApp({ db: database.db, config, accessTokens });
    await app.ready();
    const { db } = database;
    const [user] = await db.insert(users).values({ email: 'bench-insights@example.com' }).returning();
    const [workspace] = await db
      .insert(workspaces)
      .values({ name: 'Bench insights', timeZone: zone })
      .returning();
    cleanUp = async () => {
      await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
      await db.delete(users).where(eq(users.id, user!.id));
    };
    await db
      .insert(memberships)
      .values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'viewer' });
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
    // The corpus on disk: posts (every partition), its keys and profiles.
    const disk = await db.execute<{ bytes: string }>(sql`
      SELECT sum(pg_total_relation_size(l.relid))::text AS bytes FROM pg_class c
      CROSS JOIN LATERAL pg_partition_tree(c.oid) l
      WHERE c.relname IN ('posts', 'post_keys', 'profiles') AND c.relnamespace = 'public'::regnamespace
        AND l.isleaf`);
    const bytesPerPost = Number(disk.rows[0]!.bytes) / posts;
    let storeBytesPerPost: number | null = null;
    let storeLine = '';
    const store = service?.store;
    if (store) {
      // The store's active parts (what a merged store holds).
      const [parts] = await store.query<{ bytes: string }>(
        `SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = {db:String}`,
        { db: STORE_DATABASE },
      );
      storeBytesPerPost = Number(parts?.bytes) / posts;
      storeLine = `; the analytics store ${(Number(parts?.bytes) / 2 ** 30).toFixed(2)} GiB, ${storeBytesPerPost.toFixed(0)} bytes per post`;
    }
    console.log(
      `On disk: PostgreSQL ${(Number(disk.rows[0]!.bytes) / 2 ** 30).toFixed(2)} GiB, ${bytesPerPost.toFixed(0)} ` +
        `bytes per post${storeLine}.`,
    );
    const to = new Date(Math.ceil(latest.getTime() / 3_600_000) * 3_600_000);

    /** The app as each engine runs: with the store's service (read as the routes read it, per request) or none. */
    const use = (engine: Engine) => (app!.deps.analytics = engine === 'store' ? service! : undefined);
    const call = async (engine: Engine, endpoint: Endpoint, query: string, days: number) => {
      use(engine);
      const filters = {
        from: new Date(to.getTime() - days * 86_400_000).toISOString(),
        to: to.toISOString(),
        ...(platforms && { platforms }),
        ...(languages && { languages }),
      };
      const payload = {
        workspace_id: workspace!.id,
        query,
        filters,
        // Discover has no refinements.
        ...(refine && endpoint !== 'discover' ? { refine: [refine] } : {}),
      };
      const headers = { authorization: await bearer() };
      const [answered, busy] = [storeReads.answered, storeReads.busyMs];
      const started = performance.now();
      callStarted = started;
      const response = await app!.inject({
        method: 'POST',
        url: endpoint === 'discover' ? '/social/discover' : `/social/insights/${endpoint}`,
        headers,
        payload,
      });
      return {
        response,
        ms: performance.now() - started,
        fromStore: storeReads.answered > answered,
        storeMs: storeReads.busyMs - busy,
      };
    };
    const probe = await call(engines[0]!, 'discover', 'nova', 7);
    const skipDiscover =
      probe.response.statusCode === 404 &&
      probe.response.json<{ message: string }>().message.includes('No such');
    if (skipDiscover) console.log('POST /social/discover is not implemented yet: skipped.');

    console.log(
      `${runs} runs after a warm-up, per endpoint × ${queries.length} queries × ranges of ${ranges.join(', ')} ` +
        `days ending ${to.toISOString()}, workspace zone ${zone}; engines ${engines.join(', ')}, interleaved call ` +
        `by call.\n`,
    );
    const both = engines.length === 2;
    const cases: Case[] = [];
    const differences: string[] = [];
    for (const endpoint of endpoints) {
      if (endpoint === 'discover' && skipDiscover) continue;
      for (const [label, query] of queries) {
        if (endpoint === 'discover' && !query) continue;
        for (const days of ranges) {
          const what = `${endpoint} ${label} ${days}d`;
          const entry: Case = {
            endpoint,
            label,
            days,
            times: { postgres: [], store: [] },
            fromStore: { postgres: 0, store: 0 },
            storeMs: [],
          };
          // Warm-up: one call of each engine, whose answers are compared.
          const warm = new Map<Engine, { body: unknown; fromStore: boolean }>();
          for (const engine of engines) {
            const first = await call(engine, endpoint, query, days);
            if (first.response.statusCode !== 200) {
              console.error(
                `${what} (${engine}): ${first.response.statusCode} ${first.response.body.slice(0, 300)}`,
              );
              continue;
            }
            warm.set(engine, { body: first.response.json(), fromStore: first.fromStore });
          }
          if (warm.size < engines.length) continue;
          if (both && warm.get('store')!.fromStore) {
            const found = difference(warm.get('postgres')!.body, warm.get('store')!.body);
            if (found) differences.push(`${what}: ${found}`);
          }
          const traces: Traced[][] = [];
          for (let i = 0; i < runs; i += 1) {
            for (const engine of engines) {
              if (trace && engine === 'store') traced = [];
              const timed = await call(engine, endpoint, query, days);
              if (traced) traces.push(traced.sort((a, b) => a.at - b.at));
              traced = null;
              if (timed.response.statusCode !== 200)
                console.error(`${what} (${engine}): ${timed.response.statusCode}`);
              entry.times[engine].push(timed.ms);
              if (timed.fromStore) entry.fromStore[engine] += 1;
              if (timed.fromStore && engine === 'store') entry.storeMs.push(timed.storeMs);
            }
          }
          cases.push(entry);
          console.log(
            `${endpoint.padEnd(18)} ${label.padEnd(12)} ${String(days).padStart(3)}d  ${engineCells(entry, engines)}`,
          );
          traces.forEach((statements, i) => {
            console.log(`    run ${i + 1}: ${statements.length} statements`);
            for (const { at, ms: took, sql: text } of statements)
              console.log(`      +${at.toFixed(0).padStart(5)} ${took.toFixed(0).padStart(5)} ms  ${text}`);
          });
        }
      }
    }
    if (differences.length) {
      console.log(`\nThe engines' answers differ in ${differences.length} cases (the first 10):`);
      for (const line of differences.slice(0, 10)) console.log(`  ${line}`);
    } else if (both) console.log("\nThe engines' warm-up answers agree wherever the store answered.");

    summary('\nPer endpoint, over every query and range:', cases, engines, () => true, true);
    summary(
      `\nThe same without "${EVERY_POST}" (the empty query):`,
      cases,
      engines,
      (entry) => entry.label !== EVERY_POST,
      false,
    );
    targets(cases, engines, ranges, posts);
    console.log(`\nAfter: ${loadLine()}`);

    const p95 = new Map<Engine, Map<Endpoint, { p95: number; worst: string }>>();
    for (const engine of engines) {
      const perEndpoint = new Map<Endpoint, { p95: number; worst: string }>();
      for (const endpoint of endpoints) {
        const mine = cases.filter((entry) => entry.endpoint === endpoint);
        if (!mine.length) continue;
        perEndpoint.set(endpoint, {
          p95: percentile(sorted(mine.flatMap((entry) => entry.times[engine])), 95),
          worst: worstOf(mine, engine).what,
        });
      }
      p95.set(engine, perEndpoint);
    }
    return { posts, bytesPerPost, storeBytesPerPost, p95 };
  } finally {
    await cleanUp();
    await app?.close();
    await service?.stop();
    await database.close();
    await server?.stop();
  }
}

/** How many of a case's store calls the store answered, said when not all. */
function storeNote(entry: Case, engines: readonly Engine[]): string {
  const notes: string[] = [];
  const calls = entry.times.store.length;
  if (engines.includes('store') && entry.fromStore.store < calls) {
    notes.push(
      entry.fromStore.store === 0
        ? 'store: NOT READ, PostgreSQL answered'
        : `store answered ${entry.fromStore.store} of ${calls}`,
    );
  }
  if (entry.fromStore.postgres > 0) notes.push(`postgres calls read the store ${entry.fromStore.postgres}×`);
  return notes.length ? `  (${notes.join('; ')})` : '';
}

function engineCells(entry: Case, engines: readonly Engine[]): string {
  const cells = engines.map((engine) => {
    const times = sorted(entry.times[engine]);
    return `${engine.padEnd(8)} p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}`;
  });
  const ratio =
    engines.length === 2
      ? `  store/pg ${(percentile(sorted(entry.times.store), 95) / percentile(sorted(entry.times.postgres), 95)).toFixed(2)}`
      : '';
  const inStore = entry.storeMs.length ? `  in the store ${ms(percentile(sorted(entry.storeMs), 50))}` : '';
  return `${cells.join(' | ')}${ratio}${inStore}${storeNote(entry, engines)}`;
}

/** The case with the highest p95 of an engine (named with its endpoint unless `short`). */
function worstOf(cases: Case[], engine: Engine, short = false): { p95: number; what: string } {
  let worst = { p95: 0, what: '' };
  for (const entry of cases) {
    const p95 = percentile(sorted(entry.times[engine]), 95);
    if (p95 > worst.p95)
      worst = { p95, what: `${short ? '' : `${entry.endpoint} `}${entry.label} ${entry.days}d` };
  }
  return worst;
}

/** Per endpoint over the cases `keep` keeps: each engine's p50, p95 and max, store ÷ postgres, the store's share. */
function summary(
  heading: string,
  cases: Case[],
  engines: readonly Engine[],
  keep: (entry: Case) => boolean,
  slowest: boolean,
) {
  console.log(heading);
  for (const endpoint of ENDPOINTS) {
    const mine = cases.filter((entry) => entry.endpoint === endpoint && keep(entry));
    if (!mine.length) continue;
    const cells = engines.map((engine) => {
      const times = sorted(mine.flatMap((entry) => entry.times[engine]));
      return `${engine.padEnd(8)} p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}  max ${ms(times.at(-1)!)}`;
    });
    const p95 = (engine: Engine) => percentile(sorted(mine.flatMap((entry) => entry.times[engine])), 95);
    const calls = mine.reduce((n, entry) => n + entry.times[engines[0]!].length, 0);
    const answered = mine.reduce((n, entry) => n + entry.fromStore.store, 0);
    const inStore = sorted(mine.flatMap((entry) => entry.storeMs));
    const extra = [
      engines.length === 2 ? `store/pg ${(p95('store') / p95('postgres')).toFixed(2)}` : '',
      inStore.length ? `in the store's statements p50 ${ms(percentile(inStore, 50)).trim()}` : '',
      `${calls} calls each`,
      engines.includes('store')
        ? answered === calls
          ? 'all from the store'
          : answered === 0
            ? 'store: NOT READ, PostgreSQL answered'
            : `store answered ${answered} of ${calls}`
        : '',
      slowest
        ? `slowest: ${engines.map((engine) => `${engine} ${worstOf(mine, engine, true).what}`).join(', ')}`
        : '',
    ].filter(Boolean);
    console.log(`${endpoint.padEnd(18)} ${cells.join(' | ')}  (${extra.join('; ')})`);
  }
}

/**
 * The issue's targets per engine: every typed dashboard query over 30 and 90 days, every post over 90 days (each case's
 * p95, the worst one judged), discover (every case); and the p95 over all the calls of each group.
 */
function targets(cases: Case[], engines: readonly Engine[], ranges: number[], posts: number) {
  const groups: Array<{ what: string; target: number; keep: (entry: Case) => boolean }> = [
    {
      what: 'every typed dashboard query, 30 and 90 days',
      target: TARGETS.typed,
      keep: (e) => e.endpoint !== 'discover' && e.label !== EVERY_POST && (e.days === 30 || e.days === 90),
    },
    {
      what: `"${EVERY_POST}" on every dashboard, 90 days`,
      target: TARGETS.everyPost,
      keep: (e) => e.endpoint !== 'discover' && e.label === EVERY_POST && e.days === 90,
    },
    {
      what: 'discover, every query and range',
      target: TARGETS.discover,
      keep: (e) => e.endpoint === 'discover',
    },
  ];
  console.log(
    `\nThe issue's targets (p95 at ${TARGET_POSTS.toLocaleString('en-US')} posts` +
      `${posts < TARGET_POSTS * 0.99 ? `; this corpus has ${posts.toLocaleString('en-US')}, so they only indicate` : ''}` +
      `): the worst case's p95 is judged; "over all" is the p95 of every call of the group.`,
  );
  if (!ranges.includes(30) || !ranges.includes(90))
    console.log('(--ranges leaves out 30 or 90 days: those groups are partly or not measured.)');
  for (const { what, target, keep } of groups) {
    const mine = cases.filter(keep);
    if (!mine.length) {
      console.log(`${what} ≤ ${target} ms: not measured`);
      continue;
    }
    const cells = engines.map((engine) => {
      const worst = worstOf(mine, engine);
      const all = percentile(sorted(mine.flatMap((entry) => entry.times[engine])), 95);
      return (
        `${engine} worst ${ms(worst.p95)} ${worst.p95 <= target ? 'met' : 'NOT MET'} ` +
        `(${worst.what}), over all ${ms(all)}`
      );
    });
    const notFromStore = engines.includes('store')
      ? [...new Set(mine.filter((e) => e.fromStore.store < e.times.store.length).map((e) => e.endpoint))]
      : [];
    console.log(`${what} ≤ ${target} ms:`);
    for (const cell of cells) console.log(`  ${cell}`);
    if (notFromStore.length)
      console.log(`  (store: answered from PostgreSQL, wholly or partly, on ${notFromStore.join(', ')})`);
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
      engine: { type: 'string', default: ENGINES.join(',') },
      queries: { type: 'string' },
      trace: { type: 'boolean', default: false },
      refine: { type: 'string' },
      platforms: { type: 'string' },
      languages: { type: 'string' },
    },
  });
  const refine = values.refine === undefined ? undefined : /^([a-z_]+):(.+)$/.exec(values.refine);
  if (refine === null) throw new Error('--refine takes field:value[|value…], e.g. hashtag:#coffee');
  const labels = values.queries?.split(',');
  const queries = labels ? QUERIES.filter(([label]) => labels.includes(label)) : QUERIES;
  if (labels && queries.length !== labels.length)
    throw new Error(
      `--queries takes labels of ${QUERIES.map(([label]) => label).join(', ')} (comma-separated)`,
    );
  const sizes = values.posts.split(',').map((n) => Number(n.replace(/_/g, '')));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--posts takes whole numbers, comma-separated');
  const named = values.engine.split(',');
  const engines = ENGINES.filter((engine) => named.includes(engine));
  if (!engines.length || named.some((name) => !ENGINES.includes(name as Engine)))
    throw new Error(`--engine takes ${ENGINES.join(', ')} (comma-separated)`);
  const options: Options = {
    runs: Number(values.runs),
    ranges: values.ranges.split(',').map(Number),
    endpoints: values.only ? ENDPOINTS.filter((e) => values.only!.split(',').includes(e)) : ENDPOINTS,
    engines,
    zone: values.zone,
    queries,
    trace: values.trace,
    ...(refine ? { refine: { field: refine[1]!, values: refine[2]!.split('|') } } : {}),
    ...(values.platforms ? { platforms: values.platforms.split(',') } : {}),
    ...(values.languages ? { languages: values.languages.split(',') } : {}),
  };
  const results: SizeResult[] = [];
  for (const size of sizes) {
    if (sizes.length > 1) console.log(`\n=== ${sizeLabel(size)} posts ===`);
    results.push(await measure(size, options));
  }
  if (results.length < 2) return;
  // The growth curve: p95 per endpoint at each size, and how many times the smallest size's, per engine.
  for (const engine of engines) {
    console.log(`\nGrowth curve, ${engine} (p95 over every query and range, ms; × the first size):`);
    const head = ['endpoint', ...results.map((r) => sizeLabel(r.posts).padStart(14))];
    console.log(head.map((h, i) => (i === 0 ? h.padEnd(18) : h)).join(' '));
    for (const endpoint of results[0]!.p95.get(engine)!.keys()) {
      const base = results[0]!.p95.get(engine)!.get(endpoint)!.p95;
      const cells = results.map((r) => {
        const p95 = r.p95.get(engine)!.get(endpoint)?.p95;
        return p95 === undefined
          ? '–'.padStart(14)
          : `${p95.toFixed(0)} (${(p95 / base).toFixed(1)}×)`.padStart(14);
      });
      console.log([endpoint.padEnd(18), ...cells].join(' '));
    }
  }
  console.log(
    ['bytes per post, pg'.padEnd(18), ...results.map((r) => r.bytesPerPost.toFixed(0).padStart(14))].join(
      ' ',
    ),
  );
  if (engines.includes('store'))
    console.log(
      [
        'bytes/post, store'.padEnd(18),
        ...results.map((r) => (r.storeBytesPerPost?.toFixed(0) ?? '–').padStart(14)),
      ].join(' '),
    );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:insights failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
