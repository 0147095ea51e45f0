// `npm run corpus:check [-- --repair]`: recounts the posts' external keys (post_keys, the one table PostgreSQL derives
// from the posts) from the posts of the database the server uses (DATABASE_URL, or the embedded PostgreSQL in
// DATA_DIR), reports a difference, and with --repair rebuilds them from the posts. Then
// holds the analytics store (DATA_DIR/analytics, or ANALYTICS_URL's) to PostgreSQL at one corpus version, its posts,
// profiles and the tags the posts carry (server/analytics/check.ts), run here as a server runs it, and with --repair feeds what differs through the change
// feed again (or asks for a rebuild when too much does) and checks again. Refused while a server runs the store. Exit
// code 0 when the keys equal their recount and the store equals PostgreSQL (after the repair, with --repair), 1
// otherwise.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  checkStore,
  describeStoreCheck,
  differingCount,
  differingIds,
  REFEED_MAX_IDS,
  refeedStore,
  type StoreCheck,
} from '@server/analytics/check';
import { takeStoreLock } from '@server/analytics/lock';
import { AnalyticsService } from '@server/analytics/service';
import { storeHolder } from '@server/analytics/store';
import { parseAnalyticsUrl } from '@server/analytics/url';
import { loadServerConfig } from '@server/config';
import type { Database } from '@server/db/database';
import { checkCorpus, differs, repairCorpus, type CorpusCheck } from '@server/social/corpus/check';
import { createProgress, formatDuration, openCorpusDatabase, type Progress } from '@server/social/corpus/cli';

const USAGE = `Usage: npm run corpus:check [-- --repair]

  --repair   rebuild the posts' external keys (post_keys) from the posts when they differ (one transaction;
             writers of the corpus wait for it), and feed the posts, profiles and posts' tags the analytics
             store holds otherwise than PostgreSQL through the change feed again
  --help     this text`;

const count = (n: number) => n.toLocaleString('en-US');
const root = resolve(import.meta.dirname, '..');

/** Prints the store's check; true when the store equals PostgreSQL. */
function reportStore(check: StoreCheck): boolean {
  for (const line of describeStoreCheck(check)) console.log(`analytics store: ${line}`);
  return check.state === 'checked' && differingCount(differingIds(check)) === 0;
}

/**
 * Checks the analytics store, run by this process as a server runs it (its applier brings it to PostgreSQL's outbox
 * first), and with `repair` re-feeds what differs; true when it equals PostgreSQL in the end. Refused, in words, while
 * a server has the store open or another process runs it.
 */
async function checkTheStore(database: Database, repair: boolean): Promise<boolean> {
  const config = loadServerConfig();
  if (config.ANALYTICS_STORE === 'off') {
    console.log('analytics store: off (ANALYTICS_STORE=off), not checked.');
    return true;
  }
  const url = config.ANALYTICS_URL;
  const dataDir = join(resolve(root, config.DATA_DIR), 'analytics');
  const holder = url ? null : storeHolder(dataDir);
  if (holder !== null) {
    console.log(
      `analytics store: not checked: it is open in process ${holder} (a running server?) in ${dataDir}. ` +
        'Stop the server, then run npm run corpus:check again.',
    );
    return false;
  }
  const taken = await takeStoreLock(database.pool, 'murmur corpus:check');
  if ('heldBy' in taken) {
    console.log(
      `analytics store: not checked: another process runs the analytics store of ${database.describe} ` +
        `(${taken.heldBy}). Stop it, then run npm run corpus:check again.`,
    );
    return false;
  }
  await taken.lock.release();
  const where = url ? `the ClickHouse server at ${parseAnalyticsUrl(url).endpoint}` : dataDir;
  console.log(`analytics store: ${where}; applying the outbox before the check.`);
  const service = AnalyticsService.start({
    db: database.db,
    pool: database.pool,
    dataDir,
    url,
    maxThreads: config.ANALYTICS_MAX_THREADS,
    log: (line) => console.log(line),
  });
  try {
    // Ready: its layout current and its position PostgreSQL's consumer's (after a rebuild, when it needed one).
    for (;;) {
      const { phase, ready } = service.state();
      if (ready) break;
      if (phase === 'down' || phase === 'standby' || phase === 'stopped') {
        console.log(`analytics store: not checked: the store is ${phase} (see the lines above).`);
        return false;
      }
      await new Promise((done) => setTimeout(done, 200));
    }
    const started = performance.now();
    const check = await checkStore(database.pool, service);
    console.log(`analytics store: checked in ${formatDuration(performance.now() - started)}.`);
    const clean = reportStore(check);
    if (clean || check.state !== 'checked') return clean;
    const ids = differingIds(check);
    const differing = differingCount(ids);
    if (!repair) {
      console.log('Run npm run corpus:check -- --repair to feed them to the store again.');
      return false;
    }
    if (differing > REFEED_MAX_IDS) {
      console.log(
        `analytics store: ${count(differing)} posts, profiles and posts' tags differ, more than the ${count(REFEED_MAX_IDS)} ` +
          'the repair feeds again: rebuild the store instead (stop the server, then npm run analytics:rebuild).',
      );
      return false;
    }
    await refeedStore(database.pool, ids);
    console.log(
      `analytics store: ${count(ids.posts.length)} posts, ${count(ids.profiles.length)} profiles and the tags of ` +
        `${count(ids.tagPosts.length)} posts fed through the change feed again (the corpus version was raised: ` +
        'cached answers are recomputed); checking again.',
    );
    return reportStore(await checkStore(database.pool, service));
  } finally {
    await service.stop();
  }
}

/** Prints the check; true when the keys equal their recount and no key names two posts. */
function report(check: CorpusCheck): boolean {
  const wrong = check.tables.filter(differs);
  for (const t of wrong) {
    console.log(
      `${t.table}: ${count(t.stored + t.recounted)} rows differ from a recount of the posts ` +
        `(${count(t.stored)} stored rows not in the recount, ${count(t.recounted)} recounted rows not stored)`,
    );
  }
  if (check.duplicates.length > 0) {
    const shown = check.duplicates.slice(0, 20).join(', ');
    console.log(
      `posts: ${count(check.duplicates.length)} posts share an external key with an older post (ids ${shown}` +
        `${check.duplicates.length > 20 ? ', …' : ''}); the key stays with the older one. Delete the others with ` +
        `SELECT corpus_delete_posts('id IN (…)').`,
    );
  }
  if (wrong.length === 0) {
    console.log(
      `The external keys equal a recount of the posts (${check.tables
        .map((t) => `${t.table} ${count(t.rows)} rows`)
        .join(', ')}).`,
    );
  }
  return wrong.length === 0 && check.duplicates.length === 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      repair: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const database = await openCorpusDatabase();
  const client = await database.pool.connect();
  let progress: Progress | undefined;
  try {
    const started = performance.now();
    const check = await checkCorpus(client);
    console.log(
      `Checked ${count(check.posts)} posts in ${database.describe} in ${formatDuration(performance.now() - started)}.`,
    );
    const exact = report(check);
    let postgresOk = exact;
    if (check.tables.some(differs) && !values.repair) {
      console.log('Run npm run corpus:check -- --repair to rebuild them from the posts.');
    } else if (check.tables.some(differs)) {
      postgresOk = await repairTables();
    }
    const storeOk = await checkTheStore(database, values.repair);
    return postgresOk && storeOk ? 0 : 1;
  } finally {
    progress?.stop();
    client.release();
    await database.close();
  }

  async function repairTables(): Promise<boolean> {
    const repairStarted = performance.now();
    await repairCorpus(client, (done, total) => {
      progress ??= createProgress('Rebuilt', total, 'posts');
      progress.update(done, total);
    });
    progress?.stop();
    progress = undefined;
    console.log(
      `Repaired: the external keys were rebuilt from the posts in ${formatDuration(performance.now() - repairStarted)}; ` +
        'the corpus version was raised (cached answers are recomputed).',
    );
    return report(await checkCorpus(client));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // One line, no stack trace: what the database answered (or that it went away).
    const message = error instanceof Error ? error.message : String(error);
    console.error(`The corpus could not be checked: ${message}`);
    process.exit(1);
  },
);
