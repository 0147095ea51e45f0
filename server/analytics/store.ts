// The server's side of the analytics store: a child process (child.ts) that owns the embedded ClickHouse on
// DATA_DIR/analytics, and a client that sends it SQL and parses the JSONEachRow answers. A child that dies rejects
// every query in flight with one clear error; nothing waits forever. With ANALYTICS_URL the store is a ClickHouse
// server instead (remote.ts), sent the same SQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inlineParams } from './params';
import type { ChildMessage, ChildOptions, QueryRequest } from './protocol';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CHILD = join(import.meta.dirname, 'child.ts');
/**
 * Statements at once: the overview sends three, and two dashboards at once (ANALYTICS_SLOTS) six; each uses
 * max_threads threads, and the operating system shares the cores among them and the web server.
 */
const DEFAULT_CONNECTIONS = 4;
/**
 * The store's process runs this much below the server's scheduling priority (its nice value, every thread's): a query
 * may use every core (ANALYTICS_MAX_THREADS) while the web server and PostgreSQL, when they have work, come first.
 */
const DEFAULT_NICE = 10;
/** `nice`, which starts the process at that priority (its threads inherit it); without it, the server's priority. */
const NICE_COMMAND = ['/usr/bin/nice', '/bin/nice'].find((path) => existsSync(path));
/** stderr lines kept to explain a child that failed. */
const KEPT_LINES = 20;

export interface AnalyticsStoreOptions {
  /** The store's data directory (DATA_DIR/analytics for the server and the tools). */
  dataDir: string;
  /** ClickHouse's `max_threads` for every query (1 unless given: the server gives ANALYTICS_MAX_THREADS). */
  maxThreads?: number;
  /** How far below the server's priority the process runs (nice, 0–19; DEFAULT_NICE unless given). */
  nice?: number;
  /**
   * Connections the child opens to the directory, each running one statement at a time: how many statements run at
   * once (the dashboards' admission slots bound how many requests send them).
   */
  connections?: number;
  /**
   * A query not answered within this many ms is rejected, and the process killed (STOPPED_ANSWERING): the engine cannot
   * cancel a statement, and one may never end.
   */
  timeoutMs?: number;
  /** How long the child may take to open the store. */
  startTimeoutMs?: number;
  /**
   * How long close() waits for the child to finish the queries it still runs before killing it. MergeTree survives a
   * killed process: only unfinished writes are lost.
   */
  closeGraceMs?: number;
}

/**
 * The analytics store as the server and the tools use it: the embedded one (EmbeddedStore, a child process on
 * DATA_DIR/analytics) or a ClickHouse server (RemoteStore, ANALYTICS_URL); the same SQL runs on either.
 */
export interface AnalyticsStore {
  /**
   * Runs one statement; its rows as JSONEachRow objects (64-bit integers as strings). `params` fill the statement's
   * `{name:Type}` placeholders: every value from a request travels that way (inlined as expressions that hold none of
   * its characters: params.ts, inlineParams).
   */
  query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  /**
   * Runs a statement whose answer is not read (DDL, INSERT). `timeoutMs` replaces the store's time limit for this
   * statement alone (a rebuild's merge of a whole table).
   */
  exec(sql: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<void>;
  /**
   * Inserts the rows of `file`, a file on this machine of one JSONEachRow row a line, into `table`'s `columns`: the
   * embedded store's process reads the file itself, a server is sent it as it is read. Neither this process nor its
   * event loop parses or writes the rows (rows.ts, copyLines).
   */
  insertLines(table: string, columns: readonly string[], file: string): Promise<void>;
  /** Lets the statements in flight finish, then lets the store go. */
  close(): Promise<void>;
  /** Settles when the store can no longer be used, with how ("killed by SIGKILL", "exit code 1", "closed"). */
  readonly ended: Promise<string>;
  /** Which store this is, for logs: its process, or the server's address (never its credentials). */
  describe(): string;
  /** The store's process, when it runs one on this machine (the embedded store). */
  readonly pid?: number | undefined;
}

/** How `ended` begins for a process killed because a statement outlived its time limit (EmbeddedStore's hang). */
export const STOPPED_ANSWERING = 'stopped answering';

/** The analytics store's process stopped (crashed, killed, or closed) while queries were in flight or were sent. */
export class AnalyticsStoreStopped extends Error {}

/** The store's server could not be reached, or the connection failed before its answer (not a refusal). */
export class AnalyticsStoreUnreachable extends Error {}

interface Pending {
  resolve(text: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The process that has the store in `dataDir` open (ClickHouse writes its pid to `status` and locks it), or null when
 * none does: the file outlives a killed process, so its pid is checked for life.
 */
export function storeHolder(dataDir: string): number | null {
  let status: string;
  try {
    status = readFileSync(join(dataDir, 'status'), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(/^PID: (\d+)$/m.exec(status)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/**
 * Opens the store's process; a directory its engine cannot open (and no other process holds) is moved aside first,
 * `onSetAside` told why and where, and an empty store opened in its place (to be rebuilt).
 */
export async function openOrSetAside(
  options: AnalyticsStoreOptions,
  onSetAside: (reason: string, aside: string) => void,
): Promise<EmbeddedStore> {
  try {
    return await EmbeddedStore.open(options);
  } catch (error) {
    const holder = storeHolder(options.dataDir);
    if (holder !== null)
      throw new Error(`${options.dataDir} is open in process ${holder} (npm run analytics:rebuild?)`, {
        cause: error,
      });
    const aside = `${options.dataDir}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(options.dataDir, aside);
    onSetAside(error instanceof Error ? error.message : String(error), aside);
    return EmbeddedStore.open(options);
  }
}

/** The embedded store: ClickHouse (chdb) in a child process of its own on a data directory. */
export class EmbeddedStore implements AnalyticsStore {
  private readonly pending = new Map<number, Pending>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private nextId = 1;
  private stopped: string | null = null;
  private closing = false;
  /** Why the process was killed for a statement past its time limit (hang), or null. */
  private hung: string | null = null;
  private readonly exited: Promise<void>;
  /** Settles when the process is gone, with how ("killed by SIGKILL", "exit code 1", "closed"). */
  readonly ended: Promise<string>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly timeoutMs: number,
    private readonly closeGraceMs: number,
    private readonly stderr: string[],
  ) {
    let ended: (how: string) => void = () => {};
    this.ended = new Promise((resolveEnded) => (ended = resolveEnded));
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        const how = this.hung ?? (signal ? `killed by ${signal}` : `exit code ${code}`);
        ended(this.closing ? 'closed' : `${how}${this.detail()}`);
        this.stop(
          this.closing
            ? 'The analytics store is closed'
            : `The analytics store's process stopped (${how})${this.detail()}`,
        );
        resolveExit();
      });
    });
    child.on('message', (message: ChildMessage) => this.answer(message));
    // A failed kill or send: the exit, if it comes, says the rest.
    child.on('error', (error) => this.stderr.push(error.message));
  }

  /** Starts the store's process on `dataDir` and resolves once its engine has opened the directory. */
  static async open(options: AnalyticsStoreOptions): Promise<EmbeddedStore> {
    mkdirSync(options.dataDir, { recursive: true });
    const childOptions: ChildOptions = {
      dataDir: resolve(options.dataDir),
      maxThreads: options.maxThreads ?? 1,
      connections: options.connections ?? DEFAULT_CONNECTIONS,
      closeGraceMs: options.closeGraceMs ?? 10_000,
    };
    const command = [process.execPath, '--import', 'tsx', CHILD, JSON.stringify(childOptions)];
    const nice = options.nice ?? DEFAULT_NICE;
    const [file, ...args] =
      NICE_COMMAND && nice > 0 ? [NICE_COMMAND, '-n', String(nice), ...command] : command;
    const child = spawn(file!, args, {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      // A process group of its own: a terminal's Ctrl-C reaches the server, which closes the store in its order; the
      // child still ends with the server (it leaves when the IPC channel closes).
      detached: true,
    });
    const stderr: string[] = [];
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr.push(...chunk.split('\n').filter(Boolean));
      stderr.splice(0, Math.max(0, stderr.length - KEPT_LINES));
    });
    const startTimeoutMs = options.startTimeoutMs ?? 60_000;
    await new Promise<void>((resolveStart, rejectStart) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        rejectStart(new Error(`The analytics store could not open ${childOptions.dataDir}: ${why}`));
      };
      const timer = setTimeout(() => fail(`no answer within ${startTimeoutMs} ms`), startTimeoutMs);
      child.once('error', (error) => fail(error.message));
      child.once('exit', (code, signal) =>
        fail(`its process exited (${signal ?? `exit code ${code}`}) ${stderr.slice(-3).join(' ')}`.trim()),
      );
      child.once('message', (message: ChildMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          child.removeAllListeners('exit');
          child.removeAllListeners('error');
          resolveStart();
        } else if (message.type === 'failed') fail(message.error);
      });
    });
    return new EmbeddedStore(child, options.timeoutMs ?? 120_000, childOptions.closeGraceMs, stderr);
  }

  /** The process id of the store's child (for supervision and tests). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  describe(): string {
    return `pid ${this.pid}`;
  }

  async query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
    const text = await this.send(sql, params);
    const rows: T[] = [];
    for (const line of text.split('\n')) if (line) rows.push(JSON.parse(line) as T);
    return rows;
  }

  async exec(sql: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<void> {
    await this.send(sql, params, timeoutMs);
  }

  async insertLines(table: string, columns: readonly string[], file: string): Promise<void> {
    // FROM INFILE takes a literal, not an expression (inlineParams' unhex): the path quoted as ClickHouse reads one.
    if ([...file].some((ch) => ch < ' '))
      throw new Error(`Not a file the store can read: ${JSON.stringify(file)}`);
    const path = `'${file.replace(/[\\']/g, '\\$&')}'`;
    await this.send(`INSERT INTO ${table} (${columns.join(', ')}) FROM INFILE ${path} FORMAT JSONEachRow`);
  }

  /**
   * Lets the queries in flight finish, then stops the child (its engine closes the directory); a child still busy
   * after closeGraceMs (a query that timed out here) is killed.
   */
  async close(): Promise<void> {
    if (this.stopped === null && !this.closing) {
      await Promise.allSettled(this.inFlight);
      this.closing = true;
      if (this.child.connected) this.child.disconnect();
      const grace = setTimeout(() => this.child.kill('SIGKILL'), this.closeGraceMs);
      await this.exited;
      clearTimeout(grace);
    }
    await this.exited;
  }

  private send(
    statement: string,
    params?: Record<string, unknown>,
    timeoutMs = this.timeoutMs,
  ): Promise<string> {
    let sql: string;
    try {
      sql = params ? inlineParams(statement, params) : statement;
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (this.closing && this.stopped === null)
      return Promise.reject(new AnalyticsStoreStopped('The analytics store is closed'));
    if (this.stopped !== null) return Promise.reject(new AnalyticsStoreStopped(this.stopped));
    const id = this.nextId++;
    const answer = new Promise<string>((resolveQuery, rejectQuery) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        rejectQuery(
          new Error(`The analytics store did not answer within ${timeoutMs} ms: ${sql.slice(0, 200)}`),
        );
        this.hang(timeoutMs);
      }, timeoutMs);
      this.pending.set(id, { resolve: resolveQuery, reject: rejectQuery, timer });
      const request: QueryRequest = { id, sql };
      this.child.send(request, (error) => {
        if (error)
          this.settle(id, (p) =>
            p.reject(new AnalyticsStoreStopped(`The analytics store's process is gone: ${error.message}`)),
          );
      });
    });
    const settled = answer.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    return answer;
  }

  /**
   * A statement past its time limit. Its engine cannot be asked to cancel it from here, and one may never end: a
   * compressed block of a damaged part whose checksum fails makes ClickHouse look for a single flipped bit, hashing
   * the block once for each of its bits (hours for a block near 1 MiB), deaf to any limit. The process is killed, its
   * connections' other statements rejected (AnalyticsStoreStopped), and `ended` says STOPPED_ANSWERING: the service's
   * supervision starts it again, and rebuilds a store whose process stops answering again soon after.
   */
  private hang(timeoutMs: number) {
    if (this.closing || this.stopped !== null || this.hung !== null) return;
    this.hung = `${STOPPED_ANSWERING}: no answer to a statement within ${timeoutMs} ms; killed`;
    this.child.kill('SIGKILL');
  }

  private answer(message: ChildMessage) {
    if (message.type === 'result') this.settle(message.id, (p) => p.resolve(message.text));
    else if (message.type === 'error')
      this.settle(message.id, (p) =>
        p.reject(new Error(`The analytics store refused a query: ${message.error}`)),
      );
  }

  private settle(id: number, how: (pending: Pending) => void) {
    const pending = this.pending.get(id);
    if (!pending) return; // timed out already
    this.pending.delete(id);
    clearTimeout(pending.timer);
    how(pending);
  }

  private stop(why: string) {
    if (this.stopped !== null) return;
    this.stopped = why;
    const inFlight = [...this.pending.keys()];
    for (const id of inFlight) this.settle(id, (p) => p.reject(new AnalyticsStoreStopped(why)));
  }

  private detail(): string {
    return this.stderr.length ? `: ${this.stderr.slice(-3).join(' ')}` : '';
  }
}
