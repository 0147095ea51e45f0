// `npm run bench:import [-- --posts 50000 --seed 7 --batch N --csv --store --statements]`: throughput (rows/s) of
// the corpus importer (`npm run corpus:import`), called in this process through importCorpus, the CLI's own code path.
// A fresh embedded PostgreSQL in a temporary directory (migrated, removed at the end); the generator's corpus for
// --posts/--seed (window ending 2025-06-01, so the file is the same on every run) written as an NDJSON import file;
// then two timed passes: the first import into the empty corpus, and the same file again (every row an upsert that
// changes nothing). With --csv, the same in CSV into a second database. Every row must be accepted and the re-import
// must add no post.
// With --store, the analytics store runs beside as `npm start` runs it (the change feed's applier, in a directory of
// the run) and each pass is timed until both stores hold it: PostgreSQL's import, then the store's lag behind it.
// Each pass also prints the CPU a row of this process, PostgreSQL's and the store's (from /proc), and the rate their
// sum allows on this machine's cores: what a faster import has to take from; and PostgreSQL's write-ahead log a row
// (bytes, full-page images, checkpoints). With --statements, PostgreSQL runs with pg_stat_statements (every statement,
// nested ones inside functions too) and each pass prints the statements it spent most time in.
import {
  createWriteStream,
  mkdtempSync,
  chmodSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { AnalyticsService } from '@server/analytics/service';
import { connect, ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from '@server/db/database';
import {
  DEFAULT_IMPORT_BATCH,
  importCorpus,
  type ImportFormat,
  type RejectedRow,
} from '@server/social/corpus/import/run';
import { IMPORT_FIELDS } from '@server/social/corpus/import/schema';
import { generatedImportRows } from './generated-import-rows';

const END = Date.UTC(2025, 5, 1);

/** A CSV cell (docs/corpus-format.md): strings quoted, lists space-separated, absent values empty. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(' ');
  if (typeof value === 'string') return `"${value.replace(/"/g, '""')}"`;
  return String(value);
}

function* fileLines(format: ImportFormat, posts: number, seed: number): Generator<string> {
  if (format === 'csv') yield `${IMPORT_FIELDS.join(',')}\n`;
  for (const row of generatedImportRows(posts, seed, END)) {
    yield format === 'csv'
      ? `${IMPORT_FIELDS.map((field) => csvCell(row[field])).join(',')}\n`
      : `${JSON.stringify(row)}\n`;
  }
}

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

async function counts(pool: pg.Pool): Promise<{ posts: number; profiles: number }> {
  const { rows } = await pool.query<{ posts: number; profiles: number }>(
    'SELECT (SELECT count(*) FROM posts)::int AS posts, (SELECT count(*) FROM profiles)::int AS profiles',
  );
  return rows[0]!;
}

/** CPU seconds of a process from /proc (Linux): its own, and with `children` those of the children it has reaped. */
function cpuSeconds(pid: number, children = false): number {
  try {
    // The fields after the command's name: utime, stime, cutime and cstime are the 12th to the 15th, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks =
      Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100;
  } catch {
    return 0; // gone, or not Linux
  }
}

/** PostgreSQL's CPU seconds: the postmaster's, its live processes' and those of the ones that ended. */
function postgresSeconds(pgDir: string): number {
  const postmaster = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let seconds = cpuSeconds(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (parent === postmaster) seconds += cpuSeconds(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return seconds;
}

/** CPU seconds so far of the three parts of an import into both stores. */
interface Cpu {
  /** This process: reading, checking and scoring the rows, sending them, and the change feed's applier. */
  importer: number;
  postgres: number;
  /** The analytics store's process (ClickHouse). */
  store: number;
}

function cpuNow(pgDir: string, service?: AnalyticsService): Cpu {
  const own = process.cpuUsage();
  const storePid = service?.store?.pid;
  return {
    importer: (own.user + own.system) / 1e6,
    postgres: postgresSeconds(pgDir),
    store: storePid ? cpuSeconds(storePid, true) : 0,
  };
}

interface Pass {
  label: string;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  seconds: number;
  /** With --store: from the start until the store had applied the pass's last batch. */
  bothSeconds?: number;
  /** CPU seconds each part spent over the pass (with --store, until the store had applied it). */
  cpu: Cpu;
  /** PostgreSQL's write-ahead log over the pass (the whole cluster's, pg_stat_wal and pg_stat_checkpointer). */
  wal: Wal;
  /** With --statements: the statements PostgreSQL spent most time in over the pass (pg_stat_statements). */
  statements?: Statement[];
}

interface Statement {
  query: string;
  calls: number;
  ms: number;
  /** Sent by a client, not run inside a function (whose time its caller's includes). */
  toplevel: boolean;
}

/** The statements PostgreSQL spent most time in since the last reset, nested ones included. */
async function topStatements(pool: pg.Pool): Promise<Statement[]> {
  const { rows } = await pool.query<{ query: string; calls: string; ms: number; toplevel: boolean }>(
    `SELECT query, calls::text AS calls, total_exec_time AS ms, toplevel FROM pg_stat_statements
      ORDER BY total_exec_time DESC LIMIT 25`,
  );
  return rows.map((row) => ({ ...row, calls: Number(row.calls), query: row.query.replace(/\s+/g, ' ') }));
}

interface Wal {
  bytes: number;
  /** Full-page images: a page's first change after a checkpoint is logged whole. */
  fpi: number;
  checkpoints: number;
}

async function walNow(pool: pg.Pool): Promise<Wal> {
  const { rows } = await pool.query<{ bytes: string; fpi: string; checkpoints: string }>(
    `SELECT w.wal_bytes::text AS bytes, w.wal_fpi::text AS fpi, (c.num_timed + c.num_requested)::text AS checkpoints
      FROM pg_stat_wal w, pg_stat_checkpointer c`,
  );
  const [row] = rows;
  return { bytes: Number(row!.bytes), fpi: Number(row!.fpi), checkpoints: Number(row!.checkpoints) };
}

/** The outbox's last batch (0 when none). */
async function lastSeq(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ seq: string | null }>(
    'SELECT max(seq)::text AS seq FROM analytics_outbox',
  );
  return Number(rows[0]!.seq ?? 0);
}

/** Resolves once the store has applied every batch up to `seq`. */
async function storeReaches(service: AnalyticsService, seq: number): Promise<void> {
  for (;;) {
    const { appliedSeq, phase } = service.state();
    if (phase === 'down' || phase === 'stopped') throw new Error(`the analytics store is ${phase}`);
    if (appliedSeq !== null && appliedSeq >= seq) return;
    await service.caughtUpOnce();
  }
}

async function timedImport(
  pool: pg.Pool,
  pgDir: string,
  file: string,
  label: string,
  batchSize?: number,
  service?: AnalyticsService,
  statements?: pg.Pool,
): Promise<Pass> {
  const rejected: RejectedRow[] = [];
  const before = cpuNow(pgDir, service);
  const walBefore = await walNow(pool);
  await statements?.query('SELECT pg_stat_statements_reset()');
  const started = performance.now();
  const summary = await importCorpus(pool, file, { batchSize, onRejected: (row) => rejected.push(row) });
  const seconds = (performance.now() - started) / 1000;
  let bothSeconds: number | undefined;
  if (service) {
    await storeReaches(service, await lastSeq(pool));
    bothSeconds = (performance.now() - started) / 1000;
  }
  const after = cpuNow(pgDir, service);
  const walAfter = await walNow(pool);
  const top = statements ? await topStatements(statements) : undefined;
  const wal = {
    bytes: walAfter.bytes - walBefore.bytes,
    fpi: walAfter.fpi - walBefore.fpi,
    checkpoints: walAfter.checkpoints - walBefore.checkpoints,
  };
  const cpu = {
    importer: after.importer - before.importer,
    postgres: after.postgres - before.postgres,
    store: after.store - before.store,
  };
  if (summary.rejected > 0) {
    const examples = rejected.slice(0, 5).map((r) => `\n  line ${r.line}: ${r.reason}`);
    throw new Error(
      `${label}: the importer rejected ${summary.rejected} generated rows:${examples.join('')}`,
    );
  }
  return { label, ...summary, seconds, bothSeconds, cpu, wal, ...(top && { statements: top }) };
}

/** Both passes for one format, in a database of its own; checks the counts the passes must leave. */
async function bench(
  server: EmbeddedServer,
  pgDir: string,
  format: ImportFormat,
  file: string,
  posts: number,
  batch: number | undefined,
  storeDir: string | undefined,
  statements: boolean,
) {
  const name = `bench_${format}`;
  await ensureDatabase(server.urlFor('postgres'), name);
  const database = await connect(server.urlFor(name)); // migrates: every index and trigger in place
  // As the database's owner: the pool logs in as the application role, which may neither create the extension nor
  // reset or read every statement's figures.
  const owner = statements ? new pg.Pool({ connectionString: server.urlFor(name), max: 1 }) : undefined;
  await owner?.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  let service: AnalyticsService | undefined;
  try {
    if (storeDir) {
      service = AnalyticsService.start({
        db: database.db,
        pool: database.pool,
        dataDir: join(storeDir, format),
        log: () => {},
      });
      await service.caughtUpOnce(); // the empty corpus's store: built, registered, its outbox read
    }
    const first = await timedImport(
      database.pool,
      pgDir,
      file,
      `${format.padEnd(7)}first import (inserts)`,
      batch,
      service,
      owner,
    );
    const stored = await counts(database.pool);
    if (first.inserted !== posts || stored.posts !== posts)
      throw new Error(`${format}: ${first.inserted} inserted, ${stored.posts} stored, ${posts} expected`);
    const again = await timedImport(
      database.pool,
      pgDir,
      file,
      `${format.padEnd(7)}re-import (upserts, no change)`,
      batch,
      service,
      owner,
    );
    const after = await counts(database.pool);
    if (again.inserted !== 0 || after.posts !== stored.posts || after.profiles !== stored.profiles)
      throw new Error(`${format}: the re-import changed the corpus (${JSON.stringify({ stored, after })})`);
    return { passes: [first, again], profiles: stored.profiles };
  } finally {
    await service?.stop();
    await owner?.end();
    await database.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string', default: '50000' },
      seed: { type: 'string', default: '7' },
      batch: { type: 'string' },
      csv: { type: 'boolean', default: false },
      store: { type: 'boolean', default: false },
      statements: { type: 'boolean', default: false },
    },
  });
  const posts = Number(values.posts.replace(/_/g, ''));
  const seed = Number(values.seed);
  const batch = values.batch === undefined ? undefined : Number(values.batch);
  if (!Number.isInteger(posts) || posts < 1) throw new Error('--posts must be a whole number ≥ 1');
  if (batch !== undefined && (!Number.isInteger(batch) || batch < 1))
    throw new Error('--batch must be a whole number ≥ 1');
  const formats: ImportFormat[] = values.csv ? ['ndjson', 'csv'] : ['ndjson'];

  const dir = mkdtempSync(join(tmpdir(), 'murmur-bench-import-'));
  chmodSync(dir, 0o755); // PostgreSQL may run as its own user (when this runs as root)
  let server: EmbeddedServer | undefined;
  try {
    const files = new Map<ImportFormat, string>();
    for (const format of formats) {
      const file = join(dir, `corpus.${format}`);
      const started = performance.now();
      await pipeline(Readable.from(fileLines(format, posts, seed)), createWriteStream(file));
      const mb = statSync(file).size / 1e6;
      const seconds = (performance.now() - started) / 1000;
      console.log(`Generated ${file}: ${mb.toFixed(1)} MB in ${seconds.toFixed(1)} s (not in the figures).`);
      files.set(format, file);
    }
    server = await startEmbeddedPostgres(join(dir, 'pg'), await freePort(), {
      ...(values.statements && {
        settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
      }),
    });

    const passes: Pass[] = [];
    let profiles = 0;
    for (const format of formats) {
      const result = await bench(
        server,
        join(dir, 'pg'),
        format,
        files.get(format)!,
        posts,
        batch,
        values.store ? join(dir, 'analytics') : undefined,
        values.statements,
      );
      passes.push(...result.passes);
      profiles = result.profiles;
    }

    const batchLabel = batch ?? `${DEFAULT_IMPORT_BATCH} (the importer's default)`;
    console.log(
      `\nbench:import — ${posts.toLocaleString('en-US')} posts (seed ${seed}) by ` +
        `${profiles.toLocaleString('en-US')} profiles, batch ${batchLabel}, into an empty migrated database`,
    );
    const both = values.store ? '  both s   both rows/s' : '';
    console.log(
      `${'format pass'.padEnd(37)}      rows  inserted   updated unchanged   seconds     rows/s${both}`,
    );
    const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en-US');
    for (const p of passes) {
      const cells = [p.rows, p.inserted, p.updated, p.unchanged].map((n) => String(n).padStart(9));
      const store =
        p.bothSeconds === undefined
          ? ''
          : ` ${p.bothSeconds.toFixed(2).padStart(9)} ${rate(p.rows, p.bothSeconds).padStart(13)}`;
      console.log(
        `${p.label.padEnd(37)} ${cells.join(' ')} ${p.seconds.toFixed(2).padStart(9)} ` +
          `${rate(p.rows, p.seconds).padStart(10)}${store}`,
      );
    }
    const cores = availableParallelism();
    console.log(
      `\nCPU a row (µs), and the rate it allows on this machine's ${cores} cores if none of it waited:`,
    );
    console.log(`${'format pass'.padEnd(37)}  importer  PostgreSQL  store   in all   rows/s at most`);
    for (const p of passes) {
      const us = (seconds: number) => ((seconds * 1e6) / p.rows).toFixed(0).padStart(9);
      const all = p.cpu.importer + p.cpu.postgres + p.cpu.store;
      const most = Math.round((p.rows * cores) / all).toLocaleString('en-US');
      console.log(
        `${p.label.padEnd(37)} ${us(p.cpu.importer)} ${us(p.cpu.postgres)} ${us(p.cpu.store)} ${us(all)} ` +
          most.padStart(16),
      );
    }
    console.log(`\nPostgreSQL's write-ahead log a row, over the pass:`);
    console.log(`${'format pass'.padEnd(37)}     bytes  full pages  checkpoints`);
    for (const p of passes) {
      console.log(
        `${p.label.padEnd(37)} ${(p.wal.bytes / p.rows).toFixed(0).padStart(9)} ` +
          `${(p.wal.fpi / p.rows).toFixed(3).padStart(11)} ${String(p.wal.checkpoints).padStart(12)}`,
      );
    }
    for (const p of passes.filter((pass) => pass.statements)) {
      console.log(
        `\n${p.label.trim()}: PostgreSQL's statements by time (µs a row; nested ones inside functions too):`,
      );
      for (const st of p.statements!)
        console.log(
          `${((st.ms * 1000) / p.rows).toFixed(1).padStart(8)} ${String(st.calls).padStart(8)} calls ` +
            `${st.toplevel ? 'top   ' : 'nested'} ${st.query.slice(0, 110)}`,
        );
    }
    console.log(
      'importer: this process (reading, checking and scoring the rows, sending them to PostgreSQL, and the change ' +
        "feed's applier with --store); PostgreSQL: all its processes; store: the analytics store's process.",
    );
    if (values.store) {
      console.log(
        `\nboth: from the pass's start until the analytics store (running beside, fed by the change path) had ` +
          `applied its last batch. Load average ${loadavg()
            .map((n) => n.toFixed(2))
            .join(' ')}.`,
      );
    }
    console.log(
      `\nThe figures include the change path of every batch's own transaction (migration 0016): posts with every index, ` +
        "their keys, the corpus version and the analytics store's outbox rows.",
    );
  } finally {
    await server?.stop().catch((error: unknown) => console.error(`Stopping PostgreSQL: ${String(error)}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:import failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
