// `npm run worker`: collection workers alone, apart from the web server (which then runs with SCRAPING_WORKER=off),
// when collection must scale on its own. Any number may run on one database; each takes runs from the queue. With
// DATABASE_URL it uses that database; without, the embedded PostgreSQL a running `npm start` serves from DATA_DIR.
// Uploaded files are read from SCRAPING_UPLOAD_DIR (default DATA_DIR/uploads): the same directory the server writes.
// When that database goes away (the server's embedded PostgreSQL killed and started again by its supervisor, an
// external one restarted), the worker says so once, connects again with the server's bounded tries
// (EMBEDDED_PG_RESTARTS, EMBEDDED_PG_RESTART_DELAY_MS) and carries on: the queue's errors meanwhile are not logged, a
// run cut short resumes from its last committed page (its heartbeat lapses, the queue retries it). When every try
// failed it exits 1 with one line, so that what supervises it starts it again.
// With SCRAPING_BLUESKY_STREAM=true it also streams Bluesky's firehose from JETSTREAM_URL (server/scraping/streams),
// keeping the posts the saved queries match: one worker per database streams, the others stand by. With
// SCRAPING_MASTODON_STREAM=true, likewise the streaming API of each Mastodon instance a query is tracked on.
import { resolve } from 'node:path';
import { loadServerConfig } from './config';
import { connect, runningEmbeddedUrl } from './db/database';
import { watchConnection } from './db/connection-watch';
import { supervise } from './db/supervisor';
import { httpOptionsOf, startCollector } from './scraping/collector';
import { startTrackedBlueskyStream, startTrackedMastodonStreams } from './tracking/streams';
import { loadCatalogue } from './billing/plans';
import { startQueue } from './scheduler';
import { uploadDirOf } from './scraping/uploads';
import { checkSecretsKey, loadSecretsKey } from './scraping/credentials';

const root = resolve(import.meta.dirname, '..');

export async function startWorker() {
  const config = loadServerConfig();
  const dataDir = resolve(root, config.DATA_DIR);
  const url = config.DATABASE_URL ?? runningEmbeddedUrl(resolve(dataDir, 'pg'));
  if (!url) {
    throw new Error(
      `No database: set DATABASE_URL, or start the server (npm start) so its embedded PostgreSQL in ${dataDir} runs.`,
    );
  }
  const database = await connect(url);
  // The collector's, once it runs.
  let nudge = () => {};
  const supervisor = supervise(await watchConnection(url), {
    restarts: config.EMBEDDED_PG_RESTARTS,
    delayMs: config.EMBEDDED_PG_RESTART_DELAY_MS,
    start: () => watchConnection(url),
    words: {
      subject: `The database ${database.describe}`,
      lost: 'went away',
      retrying: 'connecting again',
      back: 'answers again',
      notBack: 'did not answer again',
    },
    // Due jobs and runs left unsent while it was away are looked for at once rather than at the next minute.
    onBack: () => nudge(),
    onGiveUp: (line) => {
      console.error(line);
      process.exit(1);
    },
  });
  // While the database is away every poll of the queue fails; the supervisor's lines say it once.
  const log = (message: string) => {
    if (supervisor.status().state === 'up') console.log(message);
  };
  const secretsKey = loadSecretsKey(config, dataDir);
  await checkSecretsKey(database.pool, secretsKey);
  const queue = await startQueue(config, { pool: database.pool }, { log });
  const collector = await startCollector({
    boss: queue,
    pool: database.pool,
    config,
    uploadDir: uploadDirOf(config, dataDir),
    work: true,
    secretsKey,
    log,
  });
  nudge = collector.nudge;
  const catalogue = loadCatalogue(config.BILLING_PLANS_FILE);
  const stream = config.SCRAPING_BLUESKY_STREAM
    ? startTrackedBlueskyStream(database, catalogue, config.JETSTREAM_URL, {
        handles: { url: config.SCRAPING_BLUESKY_URL, http: httpOptionsOf(config) },
        log,
      })
    : undefined;
  const mastodon = config.SCRAPING_MASTODON_STREAM
    ? startTrackedMastodonStreams(database, catalogue, {
        allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
        log,
      })
    : undefined;
  console.log(`Collection worker running on ${database.describe} (${config.SCRAPING_CONCURRENCY} at once).`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the worker (runs under way resume at the next start)…`);
    await stream?.stop();
    await mastodon?.stop();
    await collector.stop();
    await queue.stop({ graceful: true, timeout: 10_000 });
    await supervisor.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  startWorker().catch((error: unknown) => {
    console.error(`The worker could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
