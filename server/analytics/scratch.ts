// The directories the change feed's applier and a rebuild write PostgreSQL's rows to for the store to read
// (rows.ts, copyLines): one a round or a rebuild, in the operating system's temporary directory, removed when it ends.
// A process killed meanwhile leaves its directory (a round's can hold tens of megabytes): its name carries the pid
// of the process that made it, and the service removes those of processes no longer alive when it starts.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NAME = /^murmur-(feed|rebuild)-(\d+)-/;

/** A new scratch directory of this process for `kind`, in `parent`. */
export function makeScratch(kind: 'feed' | 'rebuild', parent = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `murmur-${kind}-${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the scratch directories in `parent` whose process is gone; returns their paths. */
export async function removeOrphanScratch(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [])) {
    const pid = Number(NAME.exec(name)?.[2]);
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    const path = join(parent, name);
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}
