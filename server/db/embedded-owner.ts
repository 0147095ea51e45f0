// Who owns an embedded PostgreSQL's data directory, and what a crash left behind there: a live process's database is
// refused, a dead one's recovered (server/db/database.ts startEmbeddedPostgres).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** After a reboot the pid may belong to an unrelated process: only a postgres process is ours to stop. */
export function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}

/**
 * A crash of this process leaves PostgreSQL behind: either only its postmaster.pid (the server died too), or a live
 * orphan still serving our data directory. Neither is a reason to fail: the file is removed, the orphan is asked for a
 * fast shutdown (SIGINT), and the caller starts a fresh server on the same data.
 */
export async function recoverStaleInstance(dataDir: string) {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processIsAlive(pid) || !isPostgres(pid)) {
    rmSync(pidFile, { force: true });
    return;
  }
  console.log(`Stopping a PostgreSQL left running by an earlier start (pid ${pid})…`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 30_000;
  while (existsSync(pidFile) && processIsAlive(pid)) {
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL (pid ${pid}) on ${dataDir} did not stop; stop it and retry.`);
    await new Promise((r) => setTimeout(r, 200));
  }
  rmSync(pidFile, { force: true });
}

/** The live process (not this one) that started the embedded PostgreSQL in dir, if any. */
function liveOwner(dir: string): number | undefined {
  const ownerFile = join(dir, '..', 'owner.pid');
  if (!existsSync(ownerFile)) return undefined;
  const owner = Number(readFileSync(ownerFile, 'utf8').trim());
  return Number.isInteger(owner) && owner > 0 && owner !== process.pid && processIsAlive(owner)
    ? owner
    : undefined;
}

/**
 * Which process owns an embedded data directory: `owner.pid` beside it. A live owner means the database is in use
 * (another `npm start`, a corpus script): refuse rather than stop it. A dead owner means a crash: recover.
 */
export function claimOwnership(dir: string): () => void {
  const ownerFile = join(dir, '..', 'owner.pid');
  const owner = liveOwner(dir);
  if (owner !== undefined) {
    throw new Error(
      `The database in ${resolve(dir, '..')} is in use by another Murmur process (pid ${owner}). Stop it first.`,
    );
  }
  writeFileSync(ownerFile, String(process.pid));
  return () => {
    if (existsSync(ownerFile) && readFileSync(ownerFile, 'utf8').trim() === String(process.pid))
      rmSync(ownerFile);
  };
}
