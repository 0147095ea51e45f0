// Writes the current definition of each SQL function the migrations create — trigger functions and the functions
// they and the indexes call — into server/db/functions/<name>.sql, with the triggers that execute it and an index
// (README.md), so that a function's body is read in one place instead of by replaying every migration in order.
// Released migrations are never edited; `--check` (part of `npm test`) fails when the listing is stale.
//
//   tsx scripts/db-functions.ts [--check] [--migrations <dir>] [--out <dir>]
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { renderCatalog, renderIndex, replay, type Migration } from './db-functions-extract';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INDEX = 'README.md';

/** Repo-relative posix path when inside the repo, else absolute. */
function display(path: string): string {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

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

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function existing(out: string): Promise<string[]> {
  try {
    return (await readdir(out)).filter((name) => name.endsWith('.sql') || name === INDEX).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
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

  const extra = (await existing(out)).filter((name) => !files.has(name));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [name, content] of files) {
    const current = await readIfExists(join(out, name));
    if (current === undefined) missing.push(name);
    else if (current !== content) stale.push(name);
  }
  const summary = `${catalog.functions.size} function(s) and ${catalog.triggers.size} trigger(s) of ${migrations.length} migration(s) in ${display(out)}`;

  if (values.check) {
    if (stale.length + missing.length + extra.length === 0) {
      console.log(`db-functions: OK, ${summary} up to date.`);
      return 0;
    }
    console.error(`db-functions: ${display(out)} is out of date with ${display(dir)}:`);
    for (const name of stale) console.error(`  stale:   ${display(join(out, name))}`);
    for (const name of missing) console.error(`  missing: ${display(join(out, name))}`);
    for (const name of extra)
      console.error(`  extra:   ${display(join(out, name))} (no migration defines it)`);
    console.error('Run `npm run db:functions` to update.');
    return 1;
  }

  await mkdir(out, { recursive: true });
  for (const name of [...stale, ...missing]) await writeFile(join(out, name), files.get(name) ?? '');
  // The directory is owned by this generator, so the files of dropped functions go too.
  for (const name of extra) await rm(join(out, name));
  const changes = stale.length + missing.length + extra.length;
  console.log(
    changes === 0
      ? `db-functions: ${summary}, nothing changed.`
      : `db-functions: ${summary}; wrote ${stale.length + missing.length}, removed ${extra.length}.`,
  );
  return 0;
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
