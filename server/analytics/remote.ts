// The analytics store on a ClickHouse server (ANALYTICS_URL), through ClickHouse's own client (@clickhouse/client, its
// HTTP interface): the statements the embedded store runs (store.ts), sent with the settings its process starts with
// (child.ts). What differs is the life around them: there is no process here to supervise or restart, so a server
// that cannot be reached is an error of the statement (AnalyticsStoreUnreachable: the dashboard answers from
// PostgreSQL, the change feed tries again), and `ended` settles only on close().
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { inlineParams } from './params';
import { parseAnalyticsUrl } from './url';
import { AnalyticsStoreStopped, AnalyticsStoreUnreachable, type AnalyticsStore } from './store';

export interface RemoteStoreOptions {
  /** ANALYTICS_URL: http(s)://[user[:password]@]host[:port][/path], checked by parseAnalyticsUrl. */
  url: string;
  /** ClickHouse's `max_threads` for every statement (ANALYTICS_MAX_THREADS), as the embedded store's process. */
  maxThreads?: number;
  /** A statement not answered within this many ms is abandoned (its HTTP request aborted, which cancels it). */
  timeoutMs?: number;
  /** Statements at once (HTTP connections kept open). */
  connections?: number;
}

/** While the server is out of reach, it is tried this often; statements fail at once meanwhile. */
const PROBE_EVERY_MS = 5_000;

/** Failures of the connection itself: the server is not there, or went away mid-answer. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'ETIMEDOUT',
]);

export class RemoteStore implements AnalyticsStore {
  private closed = false;
  /**
   * Why the server was last found out of reach, until a probe reaches it again: meanwhile every statement fails at
   * once (a dashboard then answers figures_unavailable without waiting for a connection that will not come).
   */
  private outOfReach: { why: string; probe: NodeJS.Timeout; probing: boolean } | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private ending: (how: string) => void = () => {};
  readonly ended: Promise<string>;

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly endpoint: string,
    private readonly timeoutMs: number,
  ) {
    this.ended = new Promise((resolve) => (this.ending = resolve));
  }

  /**
   * A store on the server at `url`. Nothing is sent yet: a server that is down now is one that may be up later, and
   * every statement says so until it is (AnalyticsStoreUnreachable).
   */
  static connect(options: RemoteStoreOptions): RemoteStore {
    const { endpoint, username, password } = parseAnalyticsUrl(options.url);
    const timeoutMs = options.timeoutMs ?? 120_000;
    const client = createClient({
      url: endpoint,
      username,
      password,
      application: 'murmur',
      // Its failures are this store's errors (explain), said once by whoever reads them, not logged here besides.
      log: { level: ClickHouseLogLevel.OFF },
      // Each statement's own limit is its abort signal (send): a rebuild's merges are given hours, a dashboard's
      // statement minutes.
      request_timeout: 24 * 3_600_000,
      max_open_connections: options.connections ?? 4,
      // As the embedded store's process (child.ts): 64-bit integers as JSON strings, no primary-key analysis of
      // token sets, statements of megabytes (values are inlined).
      clickhouse_settings: {
        max_threads: options.maxThreads ?? 1,
        output_format_json_quote_64bit_integers: 1,
        use_index_for_in_with_subqueries: 0,
        max_query_size: '67108864',
        // A rebuild's merge runs for minutes without an answer: progress headers keep a proxy between from closing
        // the idle connection.
        send_progress_in_http_headers: 1,
        http_headers_progress_interval_ms: '10000',
      },
    });
    return new RemoteStore(client, endpoint, timeoutMs);
  }

  describe(): string {
    return `ClickHouse at ${this.endpoint}`;
  }

  async query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
    return this.send(sql, params, this.timeoutMs, async (text, signal) => {
      const result = await this.client.query({ query: text, format: 'JSONEachRow', abort_signal: signal });
      return result.json<T>();
    });
  }

  async exec(sql: string, params?: Record<string, unknown>, timeoutMs = this.timeoutMs): Promise<void> {
    await this.send(sql, params, timeoutMs, async (text, signal) => {
      // An INSERT's rows follow its FORMAT clause in the body, as ClickHouse's HTTP interface reads them.
      await this.client.command({ query: text, abort_signal: signal });
    });
  }

  async insertLines(table: string, columns: readonly string[], file: string): Promise<void> {
    const statement = `INSERT INTO ${table} (${columns.join(', ')}) FORMAT JSONEachRow`;
    await this.send(statement, undefined, this.timeoutMs, async (query, signal) => {
      // exec sends the file as the request's body, as it is read (insert() would want objects to serialise); its
      // answer is read to the end, as command() reads it.
      const { stream } = await this.client.exec({
        query,
        values: createReadStream(file),
        abort_signal: signal,
      });
      await pipeline(stream, new Writable({ write: (_chunk, _encoding, done) => done() }));
    });
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      if (this.outOfReach) clearInterval(this.outOfReach.probe);
      await Promise.allSettled(this.inFlight);
      await this.client.close();
      this.ending('closed');
    }
    await this.ended;
  }

  private send<R>(
    statement: string,
    params: Record<string, unknown> | undefined,
    timeoutMs: number,
    run: (sql: string, signal: AbortSignal) => Promise<R>,
  ): Promise<R> {
    if (this.closed) return Promise.reject(new AnalyticsStoreStopped('The analytics store is closed'));
    if (this.outOfReach) return Promise.reject(this.unreachable(this.outOfReach.why));
    let sql: string;
    try {
      sql = params ? inlineParams(statement, params) : statement;
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const signal = AbortSignal.timeout(timeoutMs);
    const answer = run(sql, signal).catch((error: unknown) => {
      throw this.explain(error, sql, timeoutMs, signal);
    });
    const settled = answer.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    return answer;
  }

  /** The embedded store's errors, in its words: a refusal names ClickHouse's error type, as isStoreTimeout reads. */
  private explain(error: unknown, sql: string, timeoutMs: number, signal: AbortSignal): Error {
    if (error instanceof ClickHouseError) {
      const type = error.type ? ` (${error.type})` : '';
      return new Error(
        `The analytics store refused a query: Code: ${error.code}. ${error.message.trim()}${type}`,
      );
    }
    if (signal.aborted)
      return new Error(`The analytics store did not answer within ${timeoutMs} ms: ${sql.slice(0, 200)}`);
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const why = error instanceof Error ? error.message : String(error);
    if (NETWORK.has(code)) {
      this.markOutOfReach(why);
      return this.unreachable(why);
    }
    return new Error(`The analytics store at ${this.endpoint} failed: ${why}`);
  }

  private unreachable(why: string) {
    return new AnalyticsStoreUnreachable(
      `The analytics store at ${this.endpoint} could not be reached: ${why}`,
    );
  }

  /** From now until a probe (SELECT 1, every PROBE_EVERY_MS) is answered, statements fail at once. */
  private markOutOfReach(why: string) {
    if (this.outOfReach || this.closed) return;
    const probe = setInterval(() => void this.probe(), PROBE_EVERY_MS);
    probe.unref();
    this.outOfReach = { why, probe, probing: false };
  }

  private async probe() {
    const state = this.outOfReach;
    if (!state || state.probing) return;
    state.probing = true;
    try {
      const result = await this.client.query({
        query: 'SELECT 1 AS one',
        format: 'JSONEachRow',
        abort_signal: AbortSignal.timeout(PROBE_EVERY_MS),
      });
      await result.json();
      clearInterval(state.probe);
      if (this.outOfReach === state) this.outOfReach = null;
    } catch {
      // Still out of reach (or refusing): the next probe tries again.
    } finally {
      state.probing = false;
    }
  }
}
