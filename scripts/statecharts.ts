// Generates docs/statecharts/*.md from src/machines/*.machine.ts so the
// diagrams cannot drift from the code; `--check` is what CI runs.
//
//   tsx scripts/statecharts.ts [--check] [--dir <machines dir>] [--out <docs dir>]
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { StateMachine, type AnyStateMachine } from 'xstate';
import { renderIndex, renderMachineDoc, type IndexEntry, type MachineEntry } from './statecharts-render';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SUFFIX = '.machine.ts';
const INDEX = 'README.md';

function isMachine(value: unknown): value is AnyStateMachine {
  if (value instanceof StateMachine) return true;
  // Duck-typed too, in case a machine file resolves a second copy of xstate.
  return (
    typeof value === 'object' &&
    value !== null &&
    'root' in value &&
    'config' in value &&
    'definition' in value
  );
}

/** Repo-relative posix path when inside the repo, else absolute. */
function display(path: string): string {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

async function listMachineFiles(dir: string): Promise<string[]> {
  try {
    const names = await readdir(dir);
    return names.filter((name) => name.endsWith(SUFFIX)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function loadMachines(file: string): Promise<MachineEntry[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `could not import ${display(file)}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
  // `default` last so a machine exported both ways is documented under its name.
  const names = Object.keys(mod).sort(
    (a, b) => Number(a === 'default') - Number(b === 'default') || a.localeCompare(b),
  );
  const seen = new Set<unknown>();
  const entries: MachineEntry[] = [];
  for (const exportName of names) {
    const value = mod[exportName];
    if (!isMachine(value) || seen.has(value)) continue;
    seen.add(value);
    entries.push({ exportName, machine: value });
  }
  return entries;
}

/** Formats with the project's Prettier config so `format:check` agrees with `--check`. */
async function prettify(path: string, markdown: string): Promise<string> {
  const config = (await resolveConfig(path)) ?? {};
  return format(markdown, { ...config, filepath: path });
}

async function generate(
  dir: string,
  out: string,
): Promise<{ files: Map<string, string>; machineCount: number }> {
  const files = new Map<string, string>();
  const index: IndexEntry[] = [];
  for (const name of await listMachineFiles(dir)) {
    const file = join(dir, name);
    const machines = await loadMachines(file);
    if (machines.length === 0) {
      console.warn(`statecharts: ${display(file)} exports no state machine; skipped.`);
      continue;
    }
    const docFile = `${basename(name, SUFFIX)}.md`;
    const sourceLink = relative(out, file).split(sep).join('/');
    const entry = { docFile, sourcePath: display(file), sourceLink, machines };
    index.push(entry);
    files.set(docFile, renderMachineDoc(entry));
  }
  files.set(INDEX, renderIndex(index));
  for (const [name, markdown] of files) files.set(name, await prettify(join(out, name), markdown));
  const machineCount = index.reduce((sum, e) => sum + e.machines.length, 0);
  return { files, machineCount };
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function existingDocs(out: string): Promise<string[]> {
  try {
    return (await readdir(out)).filter((name) => name.endsWith('.md')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      dir: { type: 'string', default: join(ROOT, 'src', 'machines') },
      out: { type: 'string', default: join(ROOT, 'docs', 'statecharts') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('Usage: tsx scripts/statecharts.ts [--check] [--dir <machines dir>] [--out <docs dir>]');
    return 0;
  }
  const dir = resolve(values.dir);
  const out = resolve(values.out);
  const { files, machineCount } = await generate(dir, out);
  const extra = (await existingDocs(out)).filter((name) => !files.has(name));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [name, content] of files) {
    const current = await readIfExists(join(out, name));
    if (current === undefined) missing.push(name);
    else if (current !== content) stale.push(name);
  }
  const summary = `${machineCount} machine(s), ${files.size} file(s) in ${display(out)}`;

  if (values.check) {
    if (stale.length + missing.length + extra.length === 0) {
      console.log(`statecharts: OK, ${summary} up to date.`);
      return 0;
    }
    console.error(`statecharts: ${display(out)} is out of date with ${display(dir)}:`);
    for (const name of stale) console.error(`  stale:   ${display(join(out, name))}`);
    for (const name of missing) console.error(`  missing: ${display(join(out, name))}`);
    for (const name of extra)
      console.error(`  extra:   ${display(join(out, name))} (no machine produces it)`);
    console.error('Run `npm run statecharts` to update.');
    return 1;
  }

  await mkdir(out, { recursive: true });
  for (const name of [...stale, ...missing]) await writeFile(join(out, name), files.get(name) ?? '');
  // The directory is owned by this generator, so docs of deleted machines go too.
  for (const name of extra) await rm(join(out, name));
  const changes = stale.length + missing.length + extra.length;
  console.log(
    changes === 0
      ? `statecharts: ${summary}, nothing changed.`
      : `statecharts: ${summary}; wrote ${stale.length + missing.length}, removed ${extra.length}.`,
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`statecharts: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
