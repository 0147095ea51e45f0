// `npm run bench:size [-- --url postgres://…]`: what a corpus costs on disk, per post: each social table's heap, TOAST
// and indexes, the whole database, each index alone, with bytes per post, and how posts spread over authors (the skew
// a distribution by author would inherit). The figures of docs/scaling-citus.md. It only reads, in one read-only transaction, and never starts
// or stops a database: the URL from --url, else SIZE_DATABASE_URL, else DATABASE_URL, else the PostgreSQL already
// running on BENCH_DATA_DIR (default /tmp/murmur-1m, the insights benches' 1M-post corpus).
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { runningEmbeddedUrl } from '@server/db/database';

/** The tables of the corpus (server/db/social-schema.ts), largest first in practice. */
const TABLES = ['posts', 'post_keys', 'profiles'] as const;

function databaseUrl(given: string | undefined): string {
  const url = given ?? process.env.SIZE_DATABASE_URL ?? process.env.DATABASE_URL;
  if (url) return url;
  const dataDir = resolve(process.env.BENCH_DATA_DIR ?? '/tmp/murmur-1m');
  const running = runningEmbeddedUrl(join(dataDir, 'pg'));
  if (!running) {
    throw new Error(
      `No PostgreSQL is running on ${dataDir}/pg and no --url, SIZE_DATABASE_URL or DATABASE_URL was given ` +
        '(this script never starts a database).',
    );
  }
  return running;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(1);
const perPost = (bytes: number, posts: number) => (posts ? (bytes / posts).toFixed(1) : '–');

/** A plain-text table: the first column left-aligned, the others right-aligned. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { url: { type: 'string' } } });
  const client = new pg.Client({ connectionString: databaseUrl(values.url) });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v"))
      .rows[0]!.v;
    const counts = new Map<string, number>();
    for (const name of TABLES) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`);
      counts.set(name, Number(rows[0]!.n));
    }
    const posts = counts.get('posts')!;

    // pg_table_size: heap with its free space and visibility maps and its TOAST table (and TOAST index).
    const sizes = await client.query<{
      name: string;
      heap: string;
      toast: string;
      indexes: string;
      total: string;
    }>(
      // A partitioned table (posts, migration 0016) is the sum of its partitions (pg_partition_tree's leaves).
      `SELECT c.relname AS name,
        sum(pg_relation_size(l.relid, 'main') + pg_relation_size(l.relid, 'fsm') + pg_relation_size(l.relid, 'vm'))
          AS heap,
        sum(pg_table_size(l.relid) - pg_relation_size(l.relid, 'main') - pg_relation_size(l.relid, 'fsm')
          - pg_relation_size(l.relid, 'vm')) AS toast,
        sum(pg_indexes_size(l.relid)) AS indexes, sum(pg_total_relation_size(l.relid)) AS total
      FROM pg_class c CROSS JOIN LATERAL pg_partition_tree(c.oid) l
      WHERE c.relname = ANY($1::text[]) AND c.relkind IN ('r', 'p') AND l.isleaf
        AND c.relnamespace = 'public'::regnamespace
      GROUP BY c.relname`,
      [TABLES],
    );
    const byName = new Map(sizes.rows.map((r) => [r.name, r]));
    let sum = 0;
    const tableRows = TABLES.flatMap((name) => {
      const row = byName.get(name);
      if (!row) return [];
      sum += Number(row.total);
      return [
        [
          name,
          String(counts.get(name)),
          mb(Number(row.heap)),
          mb(Number(row.toast)),
          mb(Number(row.indexes)),
          mb(Number(row.total)),
          perPost(Number(row.total), posts),
        ],
      ];
    });
    tableRows.push(['all of the above', '', '', '', '', mb(sum), perPost(sum, posts)]);
    // The whole database: the corpus and everything else (the application's tables, the outbox, the catalog).
    const whole = Number(
      (await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')).rows[0]!
        .bytes,
    );
    tableRows.push(['the whole database', '', '', '', '', mb(whole), perPost(whole, posts)]);

    const indexes = await client.query<{ table: string; name: string; bytes: string; def: string }>(
      `SELECT t.relname AS table, i.relname AS name,
        (SELECT sum(pg_relation_size(l.relid)) FROM pg_partition_tree(i.oid) l WHERE l.isleaf) AS bytes,
        regexp_replace(pg_get_indexdef(i.oid), '^.* USING ', '') AS def
      FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relname = ANY($1::text[]) AND t.relnamespace = 'public'::regnamespace
      ORDER BY 3 DESC`,
      [TABLES],
    );

    // How posts spread over authors: what one shard would hold of the largest author, under a distribution by author.
    const skew = (
      await client.query<{ authors: string; max: string; p99: string; p999: string; top1pct: string }>(
        `WITH a AS (SELECT author_id, count(*) AS n FROM posts GROUP BY author_id)
        SELECT count(*) AS authors, max(n) AS max,
          percentile_disc(0.99) WITHIN GROUP (ORDER BY n) AS p99,
          percentile_disc(0.999) WITHIN GROUP (ORDER BY n) AS p999,
          (SELECT sum(n) FROM (SELECT n FROM a ORDER BY n DESC LIMIT greatest(1, (SELECT count(*) FROM a) / 100)) t)
            AS top1pct
        FROM a`,
      )
    ).rows[0]!;

    // The average stored width of the posts' wide columns, on a repeatable 1% sample of the pages.
    const widths = (
      await client.query<Record<string, string>>(
        `SELECT count(*) AS sampled, avg(pg_column_size(p.*)) AS row, avg(pg_column_size(p.text)) AS text,
          avg(pg_column_size(p.hashtags) + pg_column_size(p.mentions) + pg_column_size(p.domains)) AS arrays
        FROM posts p TABLESAMPLE SYSTEM (1) REPEATABLE (42)`,
      )
    ).rows[0]!;
    await client.query('COMMIT');

    console.log(`PostgreSQL ${version}; ${posts} posts, ${counts.get('profiles')} profiles.\n`);
    console.log(
      table(['table', 'rows', 'heap MB', 'TOAST MB', 'indexes MB', 'total MB', 'bytes/post'], tableRows),
    );
    console.log('');
    console.log(
      table(
        ['index', 'table', 'MB', 'bytes/post', 'definition'],
        indexes.rows.map((r) => [
          r.name,
          r.table,
          mb(Number(r.bytes)),
          perPost(Number(r.bytes), posts),
          r.def,
        ]),
      ),
    );
    console.log('');
    const authors = Number(skew.authors);
    console.log(
      `Posts per author: ${authors} authors, mean ${(posts / Math.max(authors, 1)).toFixed(1)}, ` +
        `p99 ${skew.p99}, p99.9 ${skew.p999}, max ${skew.max} (${((Number(skew.max) / posts) * 100).toFixed(3)}% ` +
        `of the posts); the top 1% of authors hold ${((Number(skew.top1pct) / posts) * 100).toFixed(1)}% of them.`,
    );
    const avg = (key: string) => Number(widths[key]).toFixed(0);
    console.log(
      `Stored width of a post (sample of ${widths.sampled} rows): row ${avg('row')} B, text ${avg('text')} B, ` +
        `hashtag/mention/domain arrays ${avg('arrays')} B.`,
    );
  } finally {
    await client.end();
  }
}

await main();
