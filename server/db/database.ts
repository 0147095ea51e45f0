// Opens the database: any PostgreSQL via DATABASE_URL, or the embedded PostgreSQL (real binaries from the npm registry)
// with its data in DATA_DIR. Migrations are applied on every start; they are idempotent.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { ServerConfig } from '@server/config';
import * as accountSchema from './schema';
import * as socialSchema from './social-schema';
import * as billingSchema from './billing-schema';
import { claimOwnership, isPostgres, processIsAlive, recoverStaleInstance } from './embedded-owner';
import { placeForAccount, postgresAccount } from './postgres-account';
import { causeOf, initdb, packagedPostgres, startPostgres, type PostgresProcess } from './postgres-process';
import { supervise, type DatabaseStatus, type SupervisorOptions } from './supervisor';
import { ensureAppRole, type AppRole } from './app-role';

const schema = { ...accountSchema, ...socialSchema, ...billingSchema };

export type Db = NodePgDatabase<typeof schema>;

export interface Database {
  db: Db;
  pool: pg.Pool;
  /**
   * The analytics pool's (dashboards, discover, exports): its own connections, so that however many heavy
   * statements run or wait, the light requests (sign-in, users/me, workspaces, saved queries) always find a
   * connection in `pool`. How many heavy requests run at once is bounded apart
   * (server/social/admission.ts).
   */
  analyticsDb: Db;
  analyticsPool: pg.Pool;
  /** The connection string (without password) for logs. */
  describe: string;
  /** The embedded PostgreSQL's state (server/db/supervisor.ts); absent for DATABASE_URL. */
  status?(): DatabaseStatus;
  close(): Promise<void>;
}

const MIGRATIONS = resolve(import.meta.dirname, 'migrations');
const EMBEDDED_USER = 'murmur';
const EMBEDDED_PASSWORD = 'murmur-local';
const DATABASE_NAME = 'murmur';

/**
 * The URL of the `murmur` database of a live PostgreSQL already serving `dataDir` (its postmaster.pid names a running
 * postgres process), over TCP on its port; null when none runs there. For scripts that use a running corpus as it is.
 */
export function runningEmbeddedUrl(dataDir: string): string | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 0 || !processIsAlive(pid) || !isPostgres(pid)) return null;
  return `postgres://${EMBEDDED_USER}:${encodeURIComponent(EMBEDDED_PASSWORD)}@127.0.0.1:${Number(portLine)}/${DATABASE_NAME}`;
}

export interface EmbeddedServer {
  port: number;
  /** Up, or (supervised) restarting after a death, or down after every try failed. */
  status(): DatabaseStatus;
  stop(): Promise<void>;
  urlFor(database: string): string;
}

/**
 * Where the embedded PostgreSQL puts its Unix socket, through which its URLs connect: the data directory (only its
 * account and root may enter it, where /tmp, PostgreSQL's default, lets anyone try the password). A query over the
 * socket costs the server noticeably less than over loopback TCP, which runs the whole TCP stack twice per message
 * (bench:api). TCP on 127.0.0.1 stays open for other clients. None (TCP only) when the socket's
 * path would pass the 107-byte limit of Unix socket paths, or the directory's name would need quoting in the setting.
 */
function socketDirFor(dataDir: string, port: number): string | undefined {
  const path = join(dataDir, `.s.PGSQL.${port}.lock`);
  return Buffer.byteLength(path) <= 100 && !/[\s,'"\\]/.test(dataDir) ? dataDir : undefined;
}

export interface EmbeddedOptions {
  /** The PostgreSQL binaries (bin/, lib/, share/); default: the npm package's. */
  binaries?: string;
  /** As root, where what the postgres account cannot reach is placed; default /var/lib/murmur. */
  sharedDir?: string;
  /** Start it again when it dies (the server); without, a death is the user's to see (the tools fail). */
  supervise?: Pick<SupervisorOptions<PostgresProcess>, 'restarts' | 'delayMs' | 'onGiveUp'>;
  /** More settings, as `-c name=value` (a bench's statistics: bench:import --statements). */
  settings?: Readonly<Record<string, string>>;
}

/**
 * Starts (initialising on first use) the embedded PostgreSQL in dataDir. As root it runs as the postgres account, and
 * what that account cannot reach (a project in /root) is placed where it can (server/db/postgres-process.ts).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  const dir = resolve(dataDir);
  mkdirSync(resolve(dir, '..'), { recursive: true });
  const account = postgresAccount();
  const placed = placeForAccount(options.binaries ?? packagedPostgres(), dir, account, options.sharedDir);
  const { binaries } = placed;
  if (!existsSync(join(placed.dataDir, 'PG_VERSION'))) {
    await initdb({
      binaries,
      dataDir: placed.dataDir,
      user: EMBEDDED_USER,
      password: EMBEDDED_PASSWORD,
      account,
    });
  }
  const release = claimOwnership(dir);
  const socketDir = socketDirFor(placed.dataDir, port);
  const launch = async () => {
    try {
      await recoverStaleInstance(dir);
      return await startPostgres({
        binaries,
        dataDir: placed.dataDir,
        port,
        // The default 128 MB cache makes a 1M-post scan read from disk on every dashboard; 1 GB keeps the working set
        // of the embedded default in memory (allocated as used, not up front). An external DATABASE_URL is tuned by
        // its owner.
        flags: [
          '-c',
          `shared_buffers=${process.env.EMBEDDED_PG_SHARED_BUFFERS ?? '1GB'}`,
          ...(socketDir ? ['-c', `unix_socket_directories=${socketDir}`] : []),
          ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
        ],
        account,
      });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      // Said first, with the setting to change, rather than at the end of PostgreSQL's log lines.
      if (/Address already in use|could not create any TCP\/IP sockets/.test(detail)) {
        throw new Error(
          `The embedded PostgreSQL cannot listen on port ${port}: it is in use by another program (stop it, or set ` +
            `EMBEDDED_PG_PORT to a free port). PostgreSQL said: ${detail}`,
          { cause: error },
        );
      }
      // A cause the log names (a full disk) first, then where and what PostgreSQL said.
      const cause = causeOf(detail);
      throw new Error(
        cause
          ? `The embedded PostgreSQL cannot start: ${cause} (port ${port}, data in ${dir}). PostgreSQL said: ${detail}`
          : `The embedded PostgreSQL did not start on port ${port} (data in ${dir}): ${detail}`,
        { cause: error },
      );
    }
  };
  let postgres: PostgresProcess;
  try {
    postgres = await launch();
  } catch (error) {
    release();
    throw error;
  }
  const supervisor =
    options.supervise &&
    supervise(postgres, {
      ...options.supervise,
      start: launch,
      detail: (current) => `pid ${current.pid}`,
      // A full disk is not cured by exiting: the tries go on until space returns, not counted against the limit.
      waitFor: (reason) =>
        causeOf(reason) === causeOf('No space left on device') ? 'the disk is full' : undefined,
    });
  return {
    port,
    status: () => supervisor?.status() ?? { state: postgres.running ? 'up' : 'down' },
    stop: async () => {
      await (supervisor ?? postgres).stop();
      release();
    },
    urlFor: (database) =>
      `postgres://${EMBEDDED_USER}:${encodeURIComponent(EMBEDDED_PASSWORD)}@127.0.0.1:${port}/${database}` +
      (socketDir ? `?host=${encodeURIComponent(socketDir)}` : ''),
  };
}

/** Creates a database when it does not exist (CREATE DATABASE has no IF NOT EXISTS). */
export async function ensureDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** The light requests' pool and the analytics pool (see Database). */
const POOL_SIZE = 10;
const ANALYTICS_POOL_SIZE = 8;

function createPool(url: string, max: number, name: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, application_name: `murmur ${name}` });
  // An idle connection closed by the server (restart, failover, shutdown) must not crash the process; the pool
  // replaces it on the next query. Once the pool is ending (the server stopping), its connections' last words (an
  // embedded PostgreSQL shutting down under connections still closing) are expected and not said.
  pool.on('error', (error) => {
    if (!pool.ending) console.error(`[db] idle connection lost: ${error.message}`);
  });
  // Nor may one that is checked out (a transaction, an import's client): pg emits 'error' on the client, and without a
  // listener Node ends the process with a stack trace. The failure still reaches its user, as the rejection of the
  // query in flight or of the next one ("Client has encountered a connection error and is not queryable").
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** The niceness of the analytics pool's backends on a PostgreSQL of this machine (see lowerPriority). */
const ANALYTICS_NICENESS = 10;

/**
 * On a PostgreSQL running on this machine (the embedded one), each analytics connection's backend process runs at a
 * lower CPU priority (nice 10): when the dashboards keep every core busy, the light requests' backends and this
 * server's own process still get a core at once, so sign-in and users/me do not wait behind them in the kernel's run
 * queue either. Only for a process that is PostgreSQL's: never for an external DATABASE_URL, whose
 * backend ids are another machine's.
 */
function lowerPriority(pool: pg.Pool) {
  pool.on('connect', (client) => {
    // The backend's process id, as the server announced it when the connection opened (pg's BackendKeyData).
    const pid = (client as pg.PoolClient & { processID?: number | null }).processID;
    if (!pid || !isPostgres(pid)) return;
    try {
      setPriority(pid, ANALYTICS_NICENESS);
    } catch {
      // Not permitted: it keeps the default priority.
    }
  });
}

export interface ConnectOptions {
  /** The database is the embedded PostgreSQL of this machine: its analytics backends run at a lower priority. */
  local?: boolean;
}

/** A connection string as logs may show it: without its password or options. */
function describeUrl(url: string): string {
  const safe = new URL(url);
  safe.password = '';
  const socket = safe.searchParams.get('host');
  safe.search = '';
  return socket ? `${safe.toString()} (through the socket in ${socket})` : safe.toString();
}

export async function connect(
  url: string,
  options: ConnectOptions = {},
): Promise<Omit<Database, 'close'> & { close(): Promise<void> }> {
  // The migrations, and the application role's rights, as the owner (the URL's role); everything else as that role
  // (server/db/app-role.ts), which cannot get around the corpus's guards.
  const owner = new pg.Client({ connectionString: url, application_name: 'murmur migrations' });
  await owner.connect();
  let role: AppRole;
  try {
    await migrate(drizzle(owner, { schema }), { migrationsFolder: MIGRATIONS });
    role = await ensureAppRole(owner, url);
  } finally {
    await owner.end().catch(() => {});
  }
  if (role.fallback) console.warn(`[db] No application role: ${role.fallback}.`);
  const appUrl = role.url;
  const pool = createPool(appUrl, POOL_SIZE, 'app');
  const db = drizzle(pool, { schema });
  const analyticsPool = createPool(appUrl, ANALYTICS_POOL_SIZE, 'analytics');
  if (options.local) lowerPriority(analyticsPool);
  const analyticsDb = drizzle(analyticsPool, { schema });
  const describe = describeUrl(appUrl);
  return {
    db,
    pool,
    analyticsDb,
    analyticsPool,
    describe,
    close: async () => {
      await Promise.all([pool.end(), analyticsPool.end()]);
    },
  };
}

/** A read replica (DATABASE_READ_URL): an analytics pool of its own on a streaming standby of the primary. */
export interface ReadReplica {
  db: Db;
  pool: pg.Pool;
  /** Its URL without password, for logs. */
  describe: string;
}

/**
 * How long a replica's connection may take to open: past it the replica counts as down and its reads go to the
 * primary (server/social/reads.ts), rather than waiting on a host that does not answer (pg waits forever by default).
 */
const REPLICA_CONNECT_TIMEOUT_MS = 3000;

/**
 * One analytics pool per replica (DATABASE_READ_URL), each the size of the primary's analytics pool. Nothing is
 * migrated there (a standby is read-only; it replays the primary's migrations) and no connection opens before the
 * first read, so a replica that is down does not keep the server from starting. Each connection's session is read-only
 * (default_transaction_read_only): pointed at a primary by mistake, a replica URL still cannot write.
 */
export function connectReplicas(urls: readonly string[]): {
  replicas: ReadReplica[];
  close(): Promise<void>;
} {
  const replicas = urls.map((url, index) => {
    const pool = new pg.Pool({
      connectionString: url,
      max: ANALYTICS_POOL_SIZE,
      application_name: `murmur analytics replica ${index + 1}`,
      connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS,
      options: '-c default_transaction_read_only=on',
    });
    pool.on('error', (error) => {
      if (!pool.ending) console.error(`[db] idle replica connection lost: ${error.message}`);
    });
    pool.on('connect', (client) => client.on('error', () => {}));
    return { db: drizzle(pool, { schema }), pool, describe: describeUrl(url) };
  });
  return {
    replicas,
    close: async () => {
      await Promise.all(replicas.map((replica) => replica.pool.end()));
    },
  };
}

/**
 * The database a configuration names, as `npm start` and every command-line tool open it: one path, so that whichever
 * starts next recovers the embedded PostgreSQL a crash left running (startEmbeddedPostgres) and refuses one that a
 * live process uses. `supervise` (the server): an embedded PostgreSQL that dies is started again
 * (server/db/supervisor.ts); `onGiveUp` hears when every try failed.
 */
export function openConfiguredDatabase(
  config: Pick<
    ServerConfig,
    'DATABASE_URL' | 'DATA_DIR' | 'EMBEDDED_PG_PORT' | 'EMBEDDED_PG_RESTARTS' | 'EMBEDDED_PG_RESTART_DELAY_MS'
  >,
  root: string,
  supervise?: { onGiveUp(line: string): void },
): Promise<Database> {
  return openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: resolve(root, config.DATA_DIR),
    embeddedPort: config.EMBEDDED_PG_PORT,
    supervise: supervise && {
      restarts: config.EMBEDDED_PG_RESTARTS,
      delayMs: config.EMBEDDED_PG_RESTART_DELAY_MS,
      onGiveUp: supervise.onGiveUp,
    },
  });
}

async function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  embeddedPort: number;
  supervise?: EmbeddedOptions['supervise'];
}): Promise<Database> {
  if (options.databaseUrl) return connect(options.databaseUrl);
  const embedded = await startEmbeddedPostgres(join(options.dataDir, 'pg'), options.embeddedPort, {
    supervise: options.supervise,
  });
  try {
    await ensureDatabase(embedded.urlFor('postgres'), DATABASE_NAME);
    const database = await connect(embedded.urlFor(DATABASE_NAME), { local: true });
    return {
      ...database,
      status: embedded.status,
      close: async () => {
        // The pools end first (their connections' last words are then not said); a connection still in use (the demo
        // corpus's seeding, stopped while starting) is ended by PostgreSQL's fast shutdown rather than waited for.
        const ended = database.close();
        await embedded.stop();
        await ended;
      },
    };
  } catch (error) {
    await embedded.stop();
    throw error;
  }
}
