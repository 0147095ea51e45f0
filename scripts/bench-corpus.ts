// The bench corpora of the insights benches (`npm run bench:insights`, `npm run bench:export`): 1M posts by default,
// or another size (`bench:insights -- --posts 10000000`). A size's corpus lives in /tmp/murmur-<size> (1m, 3m, 10m…)
// on port 55000 + millions (55001 for 1M), unless BENCH_DATA_DIR / BENCH_PG_PORT say otherwise; when that directory
// holds no database it is generated first (`npm run corpus:generate -- --posts <size> --seed 42`). A PostgreSQL
// already running on the directory is used as it is (and left running); otherwise one is started here, and the caller
// stops it. The corpus's analytics store lives beside its PostgreSQL data, in <directory>/analytics as DATA_DIR/analytics
// for `npm start`: startCorpusStore runs it as the server does, rebuilding it when it is missing, of an older layout or
// behind what the outbox can bring up to date, and keeps it for the next run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import type { ServerConfig } from '@server/config';
import {
  ensureDatabase,
  runningEmbeddedUrl,
  startEmbeddedPostgres,
  type Db,
  type EmbeddedServer,
} from '@server/db/database';
import { AnalyticsService } from '@server/analytics/service';
import { startAnalytics } from '@server/analytics/start';
import type { AnalyticsStore } from '@server/analytics/store';

export const DEFAULT_POSTS = 1_000_000;

/** 1m, 3m, 10m, or the count itself below a million. */
export const sizeLabel = (posts: number) =>
  posts >= 1_000_000 && posts % 1_000_000 === 0 ? `${posts / 1_000_000}m` : String(posts);

function placeOf(posts: number) {
  const dataDir = resolve(process.env.BENCH_DATA_DIR ?? `/tmp/murmur-${sizeLabel(posts)}`);
  const port = Number(process.env.BENCH_PG_PORT ?? 55_000 + Math.max(1, Math.round(posts / 1_000_000)));
  return { dataDir, port, pgDir: join(dataDir, 'pg') };
}

function generateCorpus(posts: number, dataDir: string, port: number) {
  if (!existsSync(resolve(import.meta.dirname, 'corpus-generate.ts'))) {
    throw new Error(`No corpus in ${dataDir} and no generator (scripts/corpus-generate.ts) to make one.`);
  }
  console.log(`No corpus in ${dataDir}: generating ${posts.toLocaleString('en-US')} posts (seed 42)…`);
  // The embedded PostgreSQL in the data directory, whatever DATABASE_URL says.
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const result = spawnSync(
    'npm',
    ['run', 'corpus:generate', '--', '--posts', String(posts), '--seed', '42'],
    {
      stdio: 'inherit',
      env: { ...env, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) },
    },
  );
  if (result.status !== 0) throw new Error('The corpus generator failed.');
}

/**
 * The corpus database's URL, the PostgreSQL started for it (null when one was already running), and the corpus's
 * directory (its DATA_DIR: pg/ and analytics/).
 */
export async function openCorpus(
  posts = DEFAULT_POSTS,
): Promise<{ url: string; server: EmbeddedServer | null; dataDir: string }> {
  const { dataDir, port, pgDir } = placeOf(posts);
  if (!existsSync(join(pgDir, 'PG_VERSION'))) generateCorpus(posts, dataDir, port);
  const running = runningEmbeddedUrl(pgDir);
  if (running) {
    console.log(`Using the PostgreSQL already running on ${pgDir}.`);
    return { url: running, server: null, dataDir };
  }
  const server = await startEmbeddedPostgres(pgDir, port);
  await ensureDatabase(server.urlFor('postgres'), 'murmur');
  return { url: server.urlFor('murmur'), server, dataDir };
}

/**
 * The corpus's analytics store started as `npm start` starts it (server/analytics/start.ts on dataDir/analytics, with
 * the config's ANALYTICS_STORE and ANALYTICS_MAX_THREADS), resolved once it has caught up with PostgreSQL: a store
 * missing, of an older layout or not reconcilable with the outbox is rebuilt first, the service printing its progress
 * every 5 s. Fails when the store is off or goes down instead (the dashboards would answer 503: a bench of the store
 * would measure refusals under the store's name).
 */
export async function startCorpusStore(
  dataDir: string,
  database: { db: Db; pool: pg.Pool },
  config: Pick<ServerConfig, 'ANALYTICS_STORE' | 'ANALYTICS_MAX_THREADS' | 'ANALYTICS_READ_WAIT_MS'>,
): Promise<AnalyticsService> {
  const started = performance.now();
  const service = await startAnalytics(config, database, dataDir);
  if (!service) throw new Error('The analytics store is off (ANALYTICS_STORE=off): nothing to measure.');
  let watch: NodeJS.Timeout | undefined;
  const down = new Promise<never>((_, reject) => {
    watch = setInterval(() => {
      const { phase } = service.state();
      if (phase === 'down' || phase === 'stopped')
        reject(new Error(`The analytics store is ${phase} (see the [analytics] lines above).`));
    }, 1_000);
  });
  try {
    const position = await Promise.race([service.caughtUpOnce(), down]);
    console.log(
      `Analytics store: caught up at corpus version ${position.corpusVersion} (outbox batch ${position.seq}) ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s after it was started.`,
    );
  } catch (error) {
    await service.stop();
    throw error;
  } finally {
    clearInterval(watch);
  }
  return service;
}

/**
 * Counts the statements the dashboards send the store from now on, how long the store was busy with them (the wall
 * time while at least one ran: statements sent together count once), and the reads the store answered: the service's
 * `store` (what a dashboard reads, server/social/insights/store-source.ts; the service's own applier holds the store
 * apart) is handed out wrapped, each query() and exec() counted, the same wrapper for the same store (a reader checks
 * that the store it read is still the service's); a read is answered by the store when the service finds the store
 * unchanged after its figures (unchangedSince true), and else by PostgreSQL, whatever statements it sent.
 * `onStatement`, when given, hears of each statement as it ends: its SQL, when it was sent (performance.now()) and
 * how long it took.
 */
export function countStoreReads(
  service: AnalyticsService,
  onStatement?: (sql: string, startedAt: number, ms: number) => void,
): StoreReads {
  const counter = { statements: 0, busyMs: 0, answered: 0 };
  let running = 0;
  let since = 0;
  const wrapped = new WeakMap<AnalyticsStore, AnalyticsStore>();
  const storeOf = Object.getOwnPropertyDescriptor(AnalyticsService.prototype, 'store')!.get!;
  const wrap = (store: AnalyticsStore) =>
    new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'query' && property !== 'exec') return value.bind(target);
        return (...args: unknown[]) => {
          counter.statements += 1;
          const startedAt = performance.now();
          if (running++ === 0) since = startedAt;
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args).finally(() => {
            const now = performance.now();
            if (--running === 0) counter.busyMs += now - since;
            onStatement?.(String(args[0]), startedAt, now - startedAt);
          });
        };
      },
    });
  Object.defineProperty(service, 'store', {
    configurable: true,
    get() {
      const store = storeOf.call(service) as AnalyticsStore | null;
      if (!store) return null;
      if (!wrapped.has(store)) wrapped.set(store, wrap(store));
      return wrapped.get(store)!;
    },
  });
  const unchangedSince = service.unchangedSince.bind(service);
  service.unchangedSince = (reading) => {
    const unchanged = unchangedSince(reading);
    if (unchanged) counter.answered += 1;
    return unchanged;
  };
  return counter;
}

/** What countStoreReads counts. */
export interface StoreReads {
  readonly statements: number;
  readonly busyMs: number;
  readonly answered: number;
}
