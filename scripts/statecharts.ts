// Generates docs/statecharts/*.md from src/machines/*.machine.ts so the
// diagrams cannot drift from the code; `--check` is what CI runs.
//
//   tsx scripts/statecharts.ts [--check] [--dir <machines dir>] [--out <docs dir>]
import { readdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { StateMachine, type AnyStateMachine } from 'xstate';
import { renderIndex, renderMachineDoc, type IndexEntry, type MachineEntry } from './statecharts-render';
import { display, ROOT, syncGeneratedDir } from './generated-dir';

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
  return syncGeneratedDir({
    tool: 'statecharts',
    script: 'statecharts',
    out,
    owns: (name) => name.endsWith('.md'),
    files,
    source: dir,
    extraReason: 'no machine produces it',
    summary: `${machineCount} machine(s), ${files.size} file(s) in ${display(out)}`,
    check: values.check,
  });
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
