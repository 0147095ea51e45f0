// `npm run worker`: collection workers alone, apart from the web server (which then runs with SCRAPING_WORKER=off),
// when collection must scale on its own. Any number may run on one database; each takes runs from the queue. With
// DATABASE_URL it uses that database; without, the embedded PostgreSQL a running `npm start` serves from DATA_DIR.
// Uploaded files are read from SCRAPING_UPLOAD_DIR (default DATA_DIR/uploads): the same directory the server writes.
import { resolve } from 'node:path';
import { loadServerConfig } from './config';
import { connect, runningEmbeddedUrl } from './db/database';
import { startCollector } from './scraping/collector';
import { startQueue } from './scheduler';
import { uploadDirOf } from './scraping/uploads';

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
  const queue = await startQueue(config, { pool: database.pool });
  const collector = await startCollector({
    boss: queue,
    pool: database.pool,
    config,
    uploadDir: uploadDirOf(config, dataDir),
    work: true,
  });
  console.log(`Collection worker running on ${database.describe} (${config.SCRAPING_CONCURRENCY} at once).`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the worker (runs under way resume at the next start)…`);
    await collector.stop();
    await queue.stop({ graceful: true, timeout: 10_000 });
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
