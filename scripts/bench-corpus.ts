// The bench corpora of the insights benches (`npm run bench:insights`, `npm run bench:export`): 1M posts by default,
// or another size (`bench:insights -- --posts 10000000`). A size's corpus lives in /tmp/murmur-<size> (1m, 3m, 10m…)
// on port 55000 + millions (55001 for 1M), unless BENCH_DATA_DIR / BENCH_PG_PORT say otherwise; when that directory
// holds no database it is generated first (`npm run corpus:generate -- --posts <size> --seed 42`). A PostgreSQL
// already running on the directory is used as it is (and left running); otherwise one is started here, and the caller
// stops it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ensureDatabase,
  runningEmbeddedUrl,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from '@server/db/database';

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

/** The corpus database's URL, and the PostgreSQL started for it (null when one was already running). */
export async function openCorpus(
  posts = DEFAULT_POSTS,
): Promise<{ url: string; server: EmbeddedServer | null }> {
  const { dataDir, port, pgDir } = placeOf(posts);
  if (!existsSync(join(pgDir, 'PG_VERSION'))) generateCorpus(posts, dataDir, port);
  const running = runningEmbeddedUrl(pgDir);
  if (running) {
    console.log(`Using the PostgreSQL already running on ${pgDir}.`);
    return { url: running, server: null };
  }
  const server = await startEmbeddedPostgres(pgDir, port);
  await ensureDatabase(server.urlFor('postgres'), 'murmur');
  return { url: server.urlFor('murmur'), server };
}
