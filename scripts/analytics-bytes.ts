// `npm run bench:analytics-bytes [-- --posts N] [--store DIR]`
// What the analytics store costs on disk per post, the figure docs/scaling.md scales to a billion posts: a store of
// the current layout is rebuilt from the bench corpus of N posts (scripts/bench-corpus.ts: /tmp/murmur-<size>,
// generated when missing; 200,000 by default) into a fresh directory, merged as a rebuild leaves it, and its active
// parts are read from system.parts and system.columns: bytes on disk per table and per column, compressed and not,
// each divided by the posts. The directory is deleted afterwards unless --store names one to keep.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LAYOUT_VERSION, STORE_DATABASE } from '@server/analytics/layout';
import { rebuildStore } from '@server/analytics/rebuild';
import { type AnalyticsStore, EmbeddedStore } from '@server/analytics/store';
import { connect } from '@server/db/database';
import { openCorpus, sizeLabel } from './bench-corpus';

const DEFAULT_POSTS = 200_000;
const BILLION = 1e9;

interface PartRow {
  table: string;
  rows: string;
  parts: string;
  bytes: string;
  compressed: string;
  uncompressed: string;
  marks: string;
}
interface ColumnRow {
  table: string;
  name: string;
  compressed: string;
  uncompressed: string;
}

/** A plain-text table: the first two columns left-aligned, the others right-aligned. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const per = (bytes: number, posts: number) => (bytes / posts).toFixed(1);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      posts: { type: 'string' },
      store: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'Usage: npm run bench:analytics-bytes [-- --posts N] [--store DIR]\n\n' +
        `  --posts N    the bench corpus's size (default ${DEFAULT_POSTS}; /tmp/murmur-<size>, generated when missing)\n` +
        '  --store DIR  rebuild the store into DIR and keep it (default: a temporary directory, deleted)',
    );
    return 0;
  }
  const posts = values.posts === undefined ? DEFAULT_POSTS : Number(values.posts);
  if (!Number.isInteger(posts) || posts < 1_000) {
    console.error(`--posts must be a whole number of 1000 or more, not ${values.posts}`);
    return 1;
  }
  const keep = values.store !== undefined;
  const dataDir = keep ? resolve(values.store!) : mkdtempSync(join(tmpdir(), 'murmur-analytics-bytes-'));

  const corpus = await openCorpus(posts);
  const database = await connect(corpus.url);
  let store: AnalyticsStore | undefined;
  try {
    store = await EmbeddedStore.open({ dataDir, maxThreads: 1, timeoutMs: 3_600_000 });
    console.log(
      `Rebuilding a store of layout ${LAYOUT_VERSION} from the ${sizeLabel(posts)} corpus into ${dataDir}…`,
    );
    const started = performance.now();
    const loaded = await rebuildStore(database, store);
    const seconds = (performance.now() - started) / 1000;
    const db = STORE_DATABASE;
    const parts = await store.query<PartRow>(
      `SELECT table, sum(rows) AS rows, count() AS parts, sum(bytes_on_disk) AS bytes,
        sum(data_compressed_bytes) AS compressed, sum(data_uncompressed_bytes) AS uncompressed,
        sum(marks_bytes) AS marks
      FROM system.parts WHERE database = '${db}' AND active AND table != 'layout'
      GROUP BY table ORDER BY bytes DESC`,
    );
    const columns = await store.query<ColumnRow>(
      `SELECT table, name, data_compressed_bytes AS compressed, data_uncompressed_bytes AS uncompressed
      FROM system.columns WHERE database = '${db}' AND table != 'layout' AND data_compressed_bytes > 0
      ORDER BY data_compressed_bytes DESC`,
    );
    const n = loaded.posts;
    const total = parts.reduce((sum, p) => sum + Number(p.bytes), 0);
    const rawTotal = parts.reduce((sum, p) => sum + Number(p.uncompressed), 0);

    console.log(
      `\n${n.toLocaleString('en-US')} posts, ${loaded.profiles.toLocaleString('en-US')} profiles; ` +
        `layout ${LAYOUT_VERSION}; rebuilt in ${seconds.toFixed(1)} s (${Math.round(n / seconds)} posts/s).\n`,
    );
    console.log(
      table(
        [
          'table',
          'parts',
          'rows',
          'rows/post',
          'on disk MiB',
          'B/post',
          'uncompressed B/post',
          'ratio',
          'marks B/post',
        ],
        parts.map((p) => [
          p.table,
          p.parts,
          Number(p.rows).toLocaleString('en-US'),
          (Number(p.rows) / n).toFixed(2),
          mib(Number(p.bytes)),
          per(Number(p.bytes), n),
          per(Number(p.uncompressed), n),
          (Number(p.uncompressed) / Math.max(1, Number(p.compressed))).toFixed(2),
          per(Number(p.marks), n),
        ]),
      ),
    );
    console.log(
      `\nAll tables: ${mib(total)} MiB on disk, ${per(total, n)} B a post on disk ` +
        `(${per(rawTotal, n)} B uncompressed).`,
    );
    console.log('\nColumns, compressed on disk (largest first):\n');
    console.log(
      table(
        ['table', 'column', 'compressed B/post', 'uncompressed B/post'],
        columns.map((c) => [c.table, c.name, per(Number(c.compressed), n), per(Number(c.uncompressed), n)]),
      ),
    );
    const profileBytes = Number(parts.find((p) => p.table === 'profiles')?.bytes ?? 0);
    const perPost = (total - profileBytes) / n;
    const perProfile = profileBytes / Math.max(1, loaded.profiles);
    const billion = perPost * BILLION + perProfile * (BILLION / (n / Math.max(1, loaded.profiles)));
    console.log(
      `\nPer post (posts and tok): ${perPost.toFixed(1)} B; per profile: ${perProfile.toFixed(1)} B ` +
        `(${(n / Math.max(1, loaded.profiles)).toFixed(1)} posts an author here).\n` +
        `A billion posts, one replica: ${perPost.toFixed(1)} B × 1e9 + ${perProfile.toFixed(1)} B × ` +
        `${((BILLION * loaded.profiles) / n / 1e6).toFixed(1)}M profiles = ${(billion / 1e9).toFixed(0)} GB ` +
        '(merged parts, as a rebuild leaves them; no free space for merges or a rebuild beside it).',
    );
    return 0;
  } finally {
    await store?.close();
    await database.close();
    await corpus.server?.stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`The measurement failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
