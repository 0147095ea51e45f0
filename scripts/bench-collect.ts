// `npm run bench:collect [-- --posts 20000 --jobs 5 --concurrency 2 --no-import]`: posts per second a collection
// job puts into the corpus, next to the corpus importer's rows per second, on this machine, in one process.
//
// A fresh embedded PostgreSQL in a temporary directory (migrated: every index and trigger of the corpus on), and a
// local replay server answering Mastodon's hashtag timeline (GET /api/v1/timelines/tag/:tag) page after page, 40
// statuses a page as Mastodon does, each status shaped like the recorded one in test/fixtures/scraping (HTML content,
// account, counts, tags; one in five without a language, so the runner detects it). The pages are made before the
// clock starts. `--jobs` hashtag jobs share the posts (a run fetches at most MAX_PAGES_LIMIT pages) and are created
// as the API does; the collector (server/scraping/collector.ts: dispatcher, pg-boss queue, in-process workers with
// SCRAPING_CONCURRENCY = --concurrency) runs them through the Mastodon connector and the runner, as `npm start` does.
// The clock runs from the jobs' creation to the last run's end. Every status must be stored, none refused.
//
// Then the importer (`npm run corpus:import`'s importCorpus, as `npm run bench:import` measures it) loads the same
// number of the generator's posts from an NDJSON file into a second empty database of the same PostgreSQL.
//
// Then each other connector (`--sources`, default hackernews,reddit,youtube,x) through the same collector, one job of
// `--source-posts` posts (10,000) into its own empty database, against the stand-in of its API the tests use
// (test/support/*-replay.ts: Algolia's search_by_date, Reddit's OAuth token and listings, YouTube's search + videos,
// X's recent search), answering at once: the connector's and the corpus's cost, not the source's rate limits. The
// credentials are sealed under a fresh SECRETS_KEY as the API stores them; comments are not fetched.
import { createWriteStream, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { MAX_PAGES_LIMIT } from '@contract/scraping';
import { loadServerConfig } from '@server/config';
import { connect, ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from '@server/db/database';
import { startCollector } from '@server/scraping/collector';
import { startQueue } from '@server/scheduler';
import { importCorpus } from '@server/social/corpus/import/run';
import { generatedImportRows } from './generated-import-rows';
import { randomBytes, randomUUID } from 'node:crypto';
import { keyIdOf, seal } from '@server/scraping/credentials';
import { sourceUrlsAt, startReplayServer, type Route } from '@test/support/replay-server';
import { hackerNewsHits, hackerNewsReplay } from '@test/support/hacker-news-replay';
import { redditPosts, redditReplay } from '@test/support/reddit-replay';
import { youtubeReplay, youtubeVideos } from '@test/support/youtube-replay';
import { xPosts, xReplay } from '@test/support/x-replay';

const PAGE_SIZE = 40;
const WORDS = {
  en: 'coffee roast espresso morning lovely terrible queue wonderful bitter beans latte barista calm awful great'.split(
    ' ',
  ),
  es: 'café tostado mañana maravilloso terrible cola amargo granos barista tranquilo horrible genial'.split(
    ' ',
  ),
  de: 'Kaffee Röstung Morgen wunderbar schrecklich Schlange bitter Bohnen ruhig furchtbar großartig'.split(
    ' ',
  ),
};
const LANGS = Object.keys(WORDS) as Array<keyof typeof WORDS>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A small deterministic generator (mulberry32), so every run serves the same statuses. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One status as Mastodon answers it (the recorded fixture's shape). Ids count down: pages go back in time. */
function status(tag: string, id: number, rand: () => number) {
  const lang = LANGS[Math.floor(rand() * LANGS.length)]!;
  const words = WORDS[lang];
  const text = Array.from(
    { length: 8 + Math.floor(rand() * 12) },
    () => words[Math.floor(rand() * words.length)],
  ).join(' ');
  const user = `user${Math.floor(rand() * 2_000)}`;
  return {
    id: String(id),
    uri: `https://replay.example/users/${user}/statuses/${id}`,
    url: `https://replay.example/@${user}/${id}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + id * 1_000).toISOString(),
    in_reply_to_id: null,
    language: rand() < 0.2 ? null : lang,
    spoiler_text: '',
    content: `<p>${text} <a href="https://replay.example/tags/${tag}" class="mention hashtag">#<span>${tag}</span></a></p>`,
    replies_count: Math.floor(rand() * 5),
    reblogs_count: Math.floor(rand() * 20),
    favourites_count: Math.floor(rand() * 50),
    account: {
      id: `9${user}`,
      username: user,
      acct: user,
      display_name: user.toUpperCase(),
      url: `https://replay.example/@${user}`,
      followers_count: Math.floor(rand() * 10_000),
      following_count: Math.floor(rand() * 500),
      note: '<p>Coffee &amp; code</p>',
      avatar: 'https://replay.example/a.png',
    },
    media_attachments: [],
    card: null,
    tags: [{ name: tag }],
    mentions: [],
  };
}

/** The recorded source: per tag, its pages (JSON text, made up front) and the Link header each one sends. */
function recordedSource(jobs: number, posts: number) {
  const rand = random(7);
  const pages = new Map<string, string[]>();
  let id = 10_000_000;
  for (let j = 0; j < jobs; j++) {
    const count = Math.floor(posts / jobs) + (j < posts % jobs ? 1 : 0);
    const tag = `bench${j}`;
    const bodies: string[] = [];
    for (let start = 0; start < count; start += PAGE_SIZE) {
      const page = Array.from({ length: Math.min(PAGE_SIZE, count - start) }, () => status(tag, id--, rand));
      bodies.push(JSON.stringify(page));
    }
    pages.set(tag, bodies);
  }
  return pages;
}

async function startSource(pages: Map<string, string[]>) {
  let origin = '';
  const server = createHttpServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://replay.local');
    const tag = /^\/api\/v1\/timelines\/tag\/([^/]+)$/.exec(url.pathname)?.[1];
    const bodies = tag ? pages.get(tag) : undefined;
    if (!bodies) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    // max_id=page:<n> is the cursor this source hands out (Mastodon's are status ids; the connector passes it on).
    const index = Number(url.searchParams.get('max_id')?.replace('page', '') ?? 0);
    const body = bodies[index] ?? '[]';
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (index + 1 < bodies.length)
      headers.link = `<${origin}/api/v1/timelines/tag/${tag}?max_id=page${index + 1}>; rel="next"`;
    response.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function counts(pool: pg.Pool) {
  const { rows } = await pool.query<{ posts: number; profiles: number; refused: number }>(
    `SELECT (SELECT count(*) FROM posts)::int AS posts, (SELECT count(*) FROM profiles)::int AS profiles,
            (SELECT count(*) FROM scrape_refusals)::int AS refused`,
  );
  return rows[0]!;
}

async function benchCollect(
  server: EmbeddedServer,
  dir: string,
  posts: number,
  jobs: number,
  concurrency: number,
) {
  const pages = recordedSource(jobs, posts);
  const pagesPerJob = Math.max(...[...pages.values()].map((bodies) => bodies.length));
  if (pagesPerJob > MAX_PAGES_LIMIT)
    throw new Error(`${pagesPerJob} pages per job is over ${MAX_PAGES_LIMIT}: use more --jobs`);
  const source = await startSource(pages);
  await ensureDatabase(server.urlFor('postgres'), 'bench_collect');
  const database = await connect(server.urlFor('bench_collect'));
  const config = loadServerConfig({
    APP_ENV: 'local',
    SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
    SCRAPING_CONCURRENCY: String(concurrency),
  });
  const log = (message: string) => console.log(`  [collector] ${message}`);
  const queue = await startQueue(config, { pool: database.pool }, { log });
  const collector = await startCollector({
    boss: queue,
    pool: database.pool,
    config,
    uploadDir: join(dir, 'uploads'),
    work: true,
    log,
  });
  try {
    const started = performance.now();
    // As POST /api/scraping/jobs does: a job due now; the dispatcher turns it into a run on the queue.
    for (const tag of pages.keys()) {
      await database.pool.query(
        `INSERT INTO scrape_jobs (name, source, params, next_run_at) VALUES ($1, 'mastodon_hashtag', $2, now())`,
        [
          `#${tag}`,
          { source: 'mastodon_hashtag', instance: source.origin, hashtag: tag, max_pages: MAX_PAGES_LIMIT },
        ],
      );
    }
    collector.nudge();
    for (;;) {
      const { rows } = await database.pool.query<{ done: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status IN ('succeeded', 'failed', 'cancelled'))::int AS done,
                count(*) FILTER (WHERE status = 'failed')::int AS failed FROM scrape_runs`,
      );
      if (rows[0]!.failed > 0) {
        const { rows: errors } = await database.pool.query(
          'SELECT error FROM scrape_runs WHERE error IS NOT NULL',
        );
        throw new Error(`A run failed: ${JSON.stringify(errors)}`);
      }
      if (rows[0]!.done === jobs) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const stored = await counts(database.pool);
    const { rows } = await database.pool.query<{ pages: number; inserted: number }>(
      'SELECT sum(pages)::int AS pages, sum(inserted)::int AS inserted FROM scrape_runs',
    );
    if (stored.posts !== posts || stored.refused !== 0 || rows[0]!.inserted !== posts)
      throw new Error(`Collected ${JSON.stringify({ ...stored, ...rows[0] })}; ${posts} posts expected`);
    return { seconds, pages: rows[0]!.pages, profiles: stored.profiles };
  } finally {
    await collector.stop();
    await queue.stop({ graceful: true, timeout: 10_000 });
    await database.close();
    await source.close();
  }
}

const SOURCES = ['hackernews', 'reddit', 'youtube', 'x'] as const;
type Source = (typeof SOURCES)[number];

interface StandIn {
  routes: Record<string, Route>;
  params: { source: string } & Record<string, unknown>;
  credential?: { kind: 'reddit' | 'youtube' | 'x'; fields: Record<string, string> };
  pageSize: number;
}

/** A source's stand-in with `posts` posts, its job's parameters (credentials filled in later) and its page size. */
function standIn(source: Source, posts: number): StandIn {
  switch (source) {
    case 'hackernews':
      return {
        routes: { '/search_by_date': hackerNewsReplay(hackerNewsHits(posts)).route },
        params: { source: 'hackernews_search', query: 'coffee' },
        pageSize: 100,
      };
    case 'reddit': {
      const replay = redditReplay(redditPosts(posts), [], { remaining: 1e9 });
      return {
        routes: replay.routes,
        params: { source: 'reddit_subreddit', subreddit: 'coffee', comment_depth: 0 },
        credential: { kind: 'reddit', fields: { ...replay.credentials } },
        pageSize: 100,
      };
    }
    case 'youtube': {
      const replay = youtubeReplay(youtubeVideos(posts), []);
      return {
        routes: replay.routes,
        params: { source: 'youtube_search', query: 'V60', comment_pages: 0 },
        credential: { kind: 'youtube', fields: { api_key: replay.apiKey } },
        pageSize: 50,
      };
    }
    case 'x': {
      const replay = xReplay(xPosts(posts), { remaining: 1e9 });
      return {
        routes: replay.routes,
        params: { source: 'x_search', query: 'flat white' },
        credential: { kind: 'x', fields: { bearer_token: replay.token } },
        pageSize: 100,
      };
    }
  }
}

/** One job of `source` through the collector into its own empty database; the clock from the job to its run's end. */
async function benchSource(server: EmbeddedServer, dir: string, source: Source, posts: number) {
  const stand = standIn(source, posts);
  if (Math.ceil(posts / stand.pageSize) > MAX_PAGES_LIMIT)
    throw new Error(`--source-posts ${posts} is more than one ${source} run's ${MAX_PAGES_LIMIT} pages`);
  const replay = await startReplayServer(stand.routes);
  await ensureDatabase(server.urlFor('postgres'), `bench_collect_${source}`);
  const database = await connect(server.urlFor(`bench_collect_${source}`));
  const key = randomBytes(32);
  const config = loadServerConfig({
    APP_ENV: 'local',
    SCRAPING_ALLOW_PRIVATE_HOSTS: 'true',
    SECRETS_KEY: key.toString('base64'),
    ...sourceUrlsAt(replay.url),
  });
  const log = (message: string) => console.log(`  [collector] ${message}`);
  const queue = await startQueue(config, { pool: database.pool }, { log });
  const collector = await startCollector({
    boss: queue,
    pool: database.pool,
    config,
    uploadDir: join(dir, 'uploads'),
    work: true,
    secretsKey: key,
    log,
  });
  try {
    let credentialId: string | undefined;
    if (stand.credential) {
      credentialId = randomUUID();
      const { kind, fields } = stand.credential;
      await database.pool.query(
        `INSERT INTO source_credentials (id, kind, name, secret, key_id, daily_quota) VALUES ($1, $2, $6, $3, $4, $5)`,
        [
          credentialId,
          kind,
          seal(key, credentialId, kind, fields),
          keyIdOf(key),
          kind === 'youtube' ? 1e9 : null,
          `${kind} (bench)`,
        ],
      );
    }
    const params = {
      ...stand.params,
      max_pages: MAX_PAGES_LIMIT,
      ...(credentialId && { credential_id: credentialId }),
    };
    const started = performance.now();
    await database.pool.query(
      `INSERT INTO scrape_jobs (name, source, params, next_run_at) VALUES ($1, $2, $3::jsonb, now())`,
      [source, params.source, JSON.stringify(params)],
    );
    collector.nudge();
    for (;;) {
      const { rows } = await database.pool.query<{ status: string; error: string | null }>(
        'SELECT status, error FROM scrape_runs',
      );
      if (rows[0]?.status === 'failed') throw new Error(`The ${source} run failed: ${rows[0].error}`);
      if (rows[0]?.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const stored = await counts(database.pool);
    const { rows } = await database.pool.query<{ pages: number }>(
      'SELECT sum(pages)::int AS pages FROM scrape_runs',
    );
    if (stored.posts !== posts || stored.refused !== 0)
      throw new Error(`${source}: collected ${JSON.stringify(stored)}; ${posts} posts expected`);
    return { seconds, pages: rows[0]!.pages, profiles: stored.profiles };
  } finally {
    await collector.stop();
    await queue.stop({ graceful: true, timeout: 10_000 });
    await database.close();
    await replay.close();
  }
}

/** The importer on the generator's posts (as bench:import), into its own empty database. */
async function benchImport(server: EmbeddedServer, dir: string, posts: number) {
  const file = join(dir, 'corpus.ndjson');
  function* lines() {
    for (const row of generatedImportRows(posts, 7, Date.UTC(2025, 5, 1))) yield `${JSON.stringify(row)}\n`;
  }
  await pipeline(Readable.from(lines()), createWriteStream(file));
  await ensureDatabase(server.urlFor('postgres'), 'bench_import');
  const database = await connect(server.urlFor('bench_import'));
  try {
    const started = performance.now();
    const summary = await importCorpus(database.pool, file, {});
    const seconds = (performance.now() - started) / 1000;
    if (summary.inserted !== posts) throw new Error(`The importer inserted ${summary.inserted} of ${posts}`);
    return { seconds };
  } finally {
    await database.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string', default: '20000' },
      jobs: { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '2' },
      'no-import': { type: 'boolean', default: false },
      sources: { type: 'string', default: SOURCES.join(',') },
      'source-posts': { type: 'string', default: '10000' },
    },
  });
  const sources = values.sources
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const source of sources)
    if (!(SOURCES as readonly string[]).includes(source))
      throw new Error(`--sources: ${source} is not one of ${SOURCES.join(', ')}`);
  const sourcePosts = Number(values['source-posts'].replace(/_/g, ''));
  if (!Number.isInteger(sourcePosts) || sourcePosts < 1)
    throw new Error('--source-posts must be a whole number ≥ 1');
  const posts = Number(values.posts.replace(/_/g, ''));
  const jobs = Number(values.jobs);
  const concurrency = Number(values.concurrency);
  for (const [name, value] of Object.entries({ posts, jobs, concurrency }))
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1`);

  const dir = mkdtempSync(join(tmpdir(), 'murmur-bench-collect-'));
  chmodSync(dir, 0o755); // PostgreSQL may run as its own user (when this runs as root)
  let server: EmbeddedServer | undefined;
  try {
    server = await startEmbeddedPostgres(join(dir, 'pg'), await freePort());
    const collected = await benchCollect(server, dir, posts, jobs, concurrency);
    const imported = values['no-import'] ? undefined : await benchImport(server, dir, posts);
    const bySource: { source: Source; seconds: number; pages: number; profiles: number }[] = [];
    for (const source of sources as Source[])
      bySource.push({ source, ...(await benchSource(server, dir, source, sourcePosts)) });
    const rate = (seconds: number) => Math.round(posts / seconds).toLocaleString('en-US');
    console.log(
      `\nbench:collect — ${posts.toLocaleString('en-US')} posts into an empty migrated corpus (triggers on), this machine`,
    );
    console.log(`${'path'.padEnd(72)}  seconds    posts/s`);
    console.log(
      `${`collection: ${jobs} Mastodon hashtag jobs, ${collected.pages} pages of ${PAGE_SIZE}, ${collected.profiles} profiles, concurrency ${concurrency}`.padEnd(72)}  ${collected.seconds.toFixed(1).padStart(7)}  ${rate(collected.seconds).padStart(9)}`,
    );
    if (imported)
      console.log(
        `${'importer: the generator’s posts, NDJSON (importCorpus, as bench:import)'.padEnd(72)}  ${imported.seconds.toFixed(1).padStart(7)}  ${rate(imported.seconds).padStart(9)}`,
      );
    for (const one of bySource) {
      console.log(
        `${`collection: 1 ${one.source} job, ${sourcePosts.toLocaleString('en-US')} posts, ${one.pages} pages, ${one.profiles} profiles`.padEnd(72)}  ${one.seconds.toFixed(1).padStart(7)}  ${Math.round(
          sourcePosts / one.seconds,
        )
          .toLocaleString('en-US')
          .padStart(9)}`,
      );
    }
    console.log(
      `load average: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')}`,
    );
  } finally {
    await server?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
