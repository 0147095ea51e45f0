// `npm run analytics:rebuild [-- --batch N]`
// Rebuilds the analytics store (embedded ClickHouse in DATA_DIR/analytics) from PostgreSQL: every profile and post
// with its lexemes, loaded into a fresh database swapped in when complete (server/analytics/rebuild.ts), with the
// outbox position of its snapshot, so that a server started afterwards applies the changes made since. Refused while
// a server has the store open (ClickHouse locks the directory), and while any process runs the analytics store of
// the same database (its lock: server/analytics/lock.ts): a running server rebuilds the store by itself. With
// ANALYTICS_URL, the store on that ClickHouse server is rebuilt instead (server/analytics/remote.ts).
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { layoutVersion } from '@server/analytics/layout';
import { takeStoreLock, type StoreLock } from '@server/analytics/lock';
import { DEFAULT_REBUILD_BATCH, rebuildStore } from '@server/analytics/rebuild';
import { RemoteStore } from '@server/analytics/remote';
import { type AnalyticsStore, EmbeddedStore, storeHolder } from '@server/analytics/store';
import { parseAnalyticsUrl } from '@server/analytics/url';
import { loadServerConfig } from '@server/config';
import { createProgress, formatDuration, openCorpusDatabase, type Progress } from '@server/social/corpus/cli';

const root = resolve(import.meta.dirname, '..');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { batch: { type: 'string' }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    console.log(
      `Usage: npm run analytics:rebuild [-- --batch N]\n\n  --batch N   rows a fetch and an insert (default ${DEFAULT_REBUILD_BATCH})`,
    );
    return 0;
  }
  const batch = values.batch === undefined ? DEFAULT_REBUILD_BATCH : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1_000_000) {
    console.error(`--batch must be a whole number from 1 to 1000000, not ${values.batch}`);
    return 1;
  }
  const config = loadServerConfig();
  const url = config.ANALYTICS_URL;
  const dataDir = join(resolve(root, config.DATA_DIR), 'analytics');
  const holder = url ? null : storeHolder(dataDir);
  if (holder !== null) {
    console.error(
      `The analytics store in ${dataDir} is open in process ${holder} (a running server?): stop it first. ` +
        'A running server rebuilds the store by itself when its layout is older or its position cannot be caught up.',
    );
    return 1;
  }
  const database = await openCorpusDatabase();
  let store: AnalyticsStore | undefined;
  let progress: Progress | undefined;
  let progressPhase: 'posts' | 'tokens' = 'posts';
  let lock: StoreLock | undefined;
  try {
    const taken = await takeStoreLock(database.pool, 'murmur analytics:rebuild');
    if ('heldBy' in taken) {
      console.error(
        `Another process runs the analytics store of ${database.describe} (${taken.heldBy}): stop it first. ` +
          'A running server rebuilds the store by itself when its layout is older or its position cannot be caught up.',
      );
      return 1;
    }
    lock = taken.lock;
    const options = { maxThreads: config.ANALYTICS_MAX_THREADS, timeoutMs: 3_600_000 };
    store = url
      ? RemoteStore.connect({ url, ...options })
      : await EmbeddedStore.open({ dataDir, ...options });
    const before = await layoutVersion(store);
    const had = before === null ? 'none yet' : `layout ${before}`;
    const where = url ? `on the ClickHouse server at ${parseAnalyticsUrl(url).endpoint}` : `in ${dataDir}`;
    console.log(`Rebuilding the analytics store ${where} (${had}) from ${database.describe}`);
    const started = performance.now();
    const result = await rebuildStore({ ...database, owner: lock.owner }, store, {
      batch,
      onProgress: (done, total, phase) => {
        if (phase !== progressPhase) {
          progress?.stop();
          progress = undefined;
          progressPhase = phase;
        }
        progress ??= createProgress(phase === 'posts' ? 'Rebuild' : 'Token rows', total, 'posts');
        progress.update(done, total);
      },
    });
    progress?.stop();
    const ms = performance.now() - started;
    console.log(
      `Done in ${formatDuration(ms)}: ${result.posts} posts and ${result.profiles} profiles ` +
        `(${Math.round(result.posts / Math.max(0.001, ms / 1000))} posts/s).`,
    );
    return 0;
  } finally {
    progress?.stop();
    await store?.close();
    await lock?.release();
    await database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`The rebuild failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
