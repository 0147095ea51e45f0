// Writes the current definition of each SQL function the migrations create — trigger functions and the functions
// they and the indexes call — into server/db/functions/<name>.sql, with the triggers that execute it and an index
// (README.md), so that a function's body is read in one place instead of by replaying every migration in order.
// Released migrations are never edited; `--check` (part of `npm test`) fails when the listing is stale.
//
//   tsx scripts/db-functions.ts [--check] [--migrations <dir>] [--out <dir>]
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { renderCatalog, renderIndex, replay, type Migration } from './db-functions-extract';
import { display, ROOT, syncGeneratedDir } from './generated-dir';

const INDEX = 'README.md';

/** The migrations in the order drizzle applies them: its journal's. */
async function readMigrations(dir: string): Promise<Migration[]> {
  const journal = JSON.parse(await readFile(join(dir, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number; tag: string }>;
  };
  const entries = [...journal.entries].sort((a, b) => a.idx - b.idx);
  return Promise.all(
    entries.map(async ({ tag }) => ({
      name: `${tag}.sql`,
      sql: await readFile(join(dir, `${tag}.sql`), 'utf8'),
    })),
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      migrations: { type: 'string', default: join(ROOT, 'server', 'db', 'migrations') },
      out: { type: 'string', default: join(ROOT, 'server', 'db', 'functions') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('Usage: tsx scripts/db-functions.ts [--check] [--migrations <dir>] [--out <dir>]');
    return 0;
  }
  const dir = resolve(values.migrations);
  const out = resolve(values.out);
  const migrations = await readMigrations(dir);
  const catalog = replay(migrations);
  const files = renderCatalog(catalog);
  // The index is Markdown: formatted with the project's Prettier config, so `format:check` agrees with `--check`.
  const indexPath = join(out, INDEX);
  const config = (await resolveConfig(indexPath)) ?? {};
  files.set(INDEX, await format(renderIndex(catalog), { ...config, filepath: indexPath }));

  const summary = `${catalog.functions.size} function(s) and ${catalog.triggers.size} trigger(s) of ${migrations.length} migration(s) in ${display(out)}`;
  return syncGeneratedDir({
    tool: 'db-functions',
    script: 'db:functions',
    out,
    owns: (name) => name.endsWith('.sql') || name === INDEX,
    files,
    source: dir,
    extraReason: 'no migration defines it',
    summary,
    check: values.check,
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`db-functions: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
