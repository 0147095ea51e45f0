// A folder owned by a generator (docs/statecharts, server/db/functions): written from what the generator renders, or
// checked against it (`--check`, part of npm test). Files the generator no longer renders are removed.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Repo-relative posix path when inside the repo, else absolute. */
export function display(path: string): string {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function listOwned(out: string, owns: (name: string) => boolean): Promise<string[]> {
  try {
    return (await readdir(out)).filter(owns).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export interface GeneratedDir {
  /** The generator's name, first word of every line it prints. */
  tool: string;
  /** The npm script that regenerates the folder. */
  script: string;
  /** The folder, and which of its files the generator owns. */
  out: string;
  owns: (name: string) => boolean;
  /** File name → content. */
  files: Map<string, string>;
  /** What the files come from, for messages. */
  source: string;
  /** Why a file of the folder that is not rendered any more is extra, e.g. "no machine produces it". */
  extraReason: string;
  /** One line on what was rendered. */
  summary: string;
  check: boolean;
}

/** Writes the folder (or, with check, compares it) and returns the exit code. */
export async function syncGeneratedDir(dir: GeneratedDir): Promise<number> {
  const { tool, out, files, summary } = dir;
  const extra = (await listOwned(out, dir.owns)).filter((name) => !files.has(name));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [name, content] of files) {
    const current = await readIfExists(join(out, name));
    if (current === undefined) missing.push(name);
    else if (current !== content) stale.push(name);
  }

  if (dir.check) {
    if (stale.length + missing.length + extra.length === 0) {
      console.log(`${tool}: OK, ${summary} up to date.`);
      return 0;
    }
    console.error(`${tool}: ${display(out)} is out of date with ${display(dir.source)}:`);
    for (const name of stale) console.error(`  stale:   ${display(join(out, name))}`);
    for (const name of missing) console.error(`  missing: ${display(join(out, name))}`);
    for (const name of extra) console.error(`  extra:   ${display(join(out, name))} (${dir.extraReason})`);
    console.error(`Run \`npm run ${dir.script}\` to update.`);
    return 1;
  }

  await mkdir(out, { recursive: true });
  for (const name of [...stale, ...missing]) await writeFile(join(out, name), files.get(name) ?? '');
  for (const name of extra) await rm(join(out, name));
  const changes = stale.length + missing.length + extra.length;
  console.log(
    changes === 0
      ? `${tool}: ${summary}, nothing changed.`
      : `${tool}: ${summary}; wrote ${stale.length + missing.length}, removed ${extra.length}.`,
  );
  return 0;
}
