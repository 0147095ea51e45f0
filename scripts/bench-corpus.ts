// The 1M-post corpus of the insights benches (`npm run bench:insights`, `npm run bench:export`): BENCH_DATA_DIR /
// BENCH_PG_PORT, else DATA_DIR=/tmp/murmur-1m on port 55001; when that directory holds no database it is generated
// first (`npm run corpus:generate -- --posts 1000000 --seed 42`). A PostgreSQL already running on the directory is used
// as it is (and left running); otherwise one is started here, and the caller stops it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ensureDatabase,
  runningEmbeddedUrl,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from '../server/db/database';

const DATA_DIR = resolve(process.env.BENCH_DATA_DIR ?? '/tmp/murmur-1m');
const PORT = Number(process.env.BENCH_PG_PORT ?? 55001);
const PG_DIR = join(DATA_DIR, 'pg');

function generateCorpus() {
  if (!existsSync(resolve(import.meta.dirname, 'corpus-generate.ts'))) {
    throw new Error(`No corpus in ${DATA_DIR} and no generator (scripts/corpus-generate.ts) to make one.`);
  }
  console.log(`No corpus in ${DATA_DIR}: generating 1,000,000 posts (seed 42)…`);
  // The embedded PostgreSQL in DATA_DIR, whatever DATABASE_URL says.
  const { DATABASE_URL: _ignored, ...env } = process.env;
  const result = spawnSync('npm', ['run', 'corpus:generate', '--', '--posts', '1000000', '--seed', '42'], {
    stdio: 'inherit',
    env: { ...env, DATA_DIR, EMBEDDED_PG_PORT: String(PORT) },
  });
  if (result.status !== 0) throw new Error('The corpus generator failed.');
}

/** The corpus database's URL, and the PostgreSQL started for it (null when one was already running). */
export async function openCorpus(): Promise<{ url: string; server: EmbeddedServer | null }> {
  if (!existsSync(join(PG_DIR, 'PG_VERSION'))) generateCorpus();
  const running = runningEmbeddedUrl(PG_DIR);
  if (running) {
    console.log(`Using the PostgreSQL already running on ${PG_DIR}.`);
    return { url: running, server: null };
  }
  const server = await startEmbeddedPostgres(PG_DIR, PORT);
  await ensureDatabase(server.urlFor('postgres'), 'murmur');
  return { url: server.urlFor('murmur'), server };
}
