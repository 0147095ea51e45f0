// The REAL server for browser tests: the Fastify app with the development OpenID provider, a fresh embedded
// PostgreSQL, and its own SPA build (dist-e2e-real/) whose API base and provider issuer are this server's origin.
// The build is reused while its inputs and settings are unchanged, like dist-e2e/ (test/support/browser-global-setup.ts).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AnalyticsService } from '@server/analytics/service';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { connect, ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from '@server/db/database';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { loadSigningKey } from '@server/auth/signing-key';
import { demoUserIds, seedDevData } from '@server/seed';
import { startCollector } from '@server/scraping/collector';
import { schedulePeriodic, startQueue } from '@server/scheduler';
import { alertJobs, evaluateNow } from '@server/alerts/job';
import { startMail, type MailService } from '@server/mail/start';
import { uploadDirOf } from '@server/scraping/uploads';
import { buildSpaFor, localSpaEnv } from './spa-build';
import { loadSecretsKey } from '@server/scraping/credentials';
import { startTrackedBlueskyStream, startTrackedMastodonStreams } from '@server/tracking/streams';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST_DIR = path.join(ROOT, 'dist-e2e-real');

export interface RealServer {
  origin: string;
  /** The running app; a new instance after restart(). */
  app: FastifyInstance;
  accessTokens: ReturnType<typeof createAccessTokens>;
  /** An access token of a new sign-in of the user (its refresh-token family in the running app's database). */
  tokenFor(userId: string): Promise<string>;
  /** The database of the running app; a new pool after restart(). */
  db: Awaited<ReturnType<typeof connect>>['db'];
  /** DATA_DIR of this server: PostgreSQL's files (pg/), the access-token signing key, the provider's keys. */
  dataDir: string;
  /**
   * Stops the app, its connection pool and the embedded PostgreSQL as `npm start` does on Ctrl-C, then starts them again
   * on the same data directory and ports as `npm start` would (migrations and the dev seed run again). The dev
   * provider's sessions are in memory and do not survive; users, workspaces and refresh tokens do.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
  /**
   * With `alerts`: the alert rules evaluated now (a job on the queue, as a batch the store applied sends one), their
   * deliveries sent after; the development mailbox's messages are at /dev/mailbox.
   */
  evaluateAlerts(): Promise<void>;
}

export interface RealServerOptions {
  /**
   * Runs the collection queue in the server process as `npm start` does (server/scraping/collector.ts, dispatcher
   * every 0.5 s here); off by default, as only the scraping suite needs it.
   */
  collector?: boolean;
  /**
   * Alerts as `npm start` runs them: the development mailbox (on a free port) and the alert jobs on the queue
   * (server/alerts/job.ts); evaluateAlerts() sends the evaluation job at once rather than waiting for the minute.
   */
  alerts?: boolean;
  /**
   * More configuration (the sources' URLs pointed at a replay server). With SCRAPING_BLUESKY_STREAM=true (and
   * SCRAPING_WORKER in-process, the default) the server streams Bluesky from JETSTREAM_URL as `npm start` does.
   */
  env?: Record<string, string>;
  /**
   * The SPA built with these settings into this folder (under the repository) instead of dist-e2e-real/ built for this
   * server's origin: e.g. the default build of `.env`, which calls http://localhost:8787 whatever port this server has.
   */
  spa?: { dir: string; env: Record<string, string> };
}

/**
 * The embedded PostgreSQL on a random port of 55000–55499, another one when that is taken (the machine runs other
 * tests' servers, which may have bound it since it was picked: PostgreSQL then says it could not create any socket).
 */
async function startOnSomePort(pgDir: string): Promise<EmbeddedServer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startEmbeddedPostgres(pgDir, 55_000 + Math.floor(Math.random() * 500));
    } catch (error) {
      if (attempt === 5 || !/could not create any TCP\/IP sockets/.test(String(error))) throw error;
    }
  }
}

export async function startRealServer(port: number, options: RealServerOptions = {}): Promise<RealServer> {
  const origin = `http://127.0.0.1:${port}`;
  const distDir = options.spa ? path.join(ROOT, options.spa.dir) : DIST_DIR;
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-real-e2e-'));
  // As root, PostgreSQL runs as its own system user, which must be able to enter the directory.
  chmodSync(dir, 0o755);
  const pgDir = path.join(dir, 'pg');
  const config = loadServerConfig({
    APP_ENV: 'local',
    PORT: String(port),
    DEV_OIDC_ISSUER: `${origin}/oidc`,
    // The card checkout returns here, and the built-in payment provider is served here (/payments/).
    APP_URL: origin,
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    SCRAPING_RETRY_DELAY_SECONDS: '1',
    ...options.env,
  });
  // Like `npm start` with APP_ENV local: the source credentials' key is made in DATA_DIR.
  const secretsKey = loadSecretsKey(config, dir);
  // Like `npm start`: the signing key lives in DATA_DIR, so access tokens stay valid across a restart.
  const accessTokens = createAccessTokens(loadSigningKey(undefined, dir), config.ACCESS_TOKEN_TTL_SECONDS);

  let postgres: EmbeddedServer | undefined;
  /** Stops what runs on top of PostgreSQL: the app, then its connection pool. */
  let stopApp: () => Promise<void> = async () => undefined;
  let evaluate: () => Promise<void> = async () => {
    throw new Error('startRealServer({ alerts: true }) runs the alert jobs.');
  };

  const startApp = async (pg: EmbeddedServer) => {
    await ensureDatabase(pg.urlFor('postgres'), 'murmur');
    const database = await connect(pg.urlFor('murmur'));
    const mail: MailService | null = options.alerts
      ? await startMail({ ...config, DEV_MAILBOX: true, DEV_MAILBOX_PORT: 0 })
      : null;
    const app = await buildApp({
      db: database.db,
      analyticsDb: database.analyticsDb,
      config,
      accessTokens,
      spaDir: distDir,
      connectOrigins: [origin],
      dataDir: dir,
      secretsKey,
      mailer: mail?.mailer,
      devMailbox: mail?.devMailbox,
    }).catch(async (error: unknown) => {
      await mail?.close().catch(() => undefined);
      await database.close().catch(() => undefined);
      throw error;
    });
    const running: { analytics?: AnalyticsService } = {};
    let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
    let queue: Awaited<ReturnType<typeof startQueue>> | undefined;
    let stream: ReturnType<typeof startTrackedBlueskyStream> | undefined;
    let mastodon: ReturnType<typeof startTrackedMastodonStreams> | undefined;
    stopApp = async () => {
      stopApp = async () => undefined;
      await app.close().catch(() => undefined);
      await stream?.stop().catch(() => undefined);
      await mastodon?.stop().catch(() => undefined);
      await running.analytics?.stop().catch(() => undefined);
      await collector?.stop().catch(() => undefined);
      await queue?.stop({ graceful: false }).catch(() => undefined);
      await mail?.close().catch(() => undefined);
      await database.close().catch(() => undefined);
    };
    await seedDevData(database.db, config);
    // The analytics store as `npm start` runs it (in DATA_DIR), caught up; a read waits for a test's own writes.
    const analytics = (running.analytics = AnalyticsService.start({
      db: database.db,
      pool: database.pool,
      dataDir: path.join(dir, 'analytics'),
      coalesceMs: 0,
      readWaitMs: 30_000,
      log: () => undefined,
    }));
    await analytics.caughtUpOnce();
    app.deps.analytics = analytics;
    await app.listen({ host: '127.0.0.1', port });
    if (options.collector || options.alerts) {
      queue = await startQueue(config, { pool: database.pool }, { log: () => undefined });
    }
    if (options.alerts) {
      const boss = queue!;
      await schedulePeriodic(
        boss,
        alertJobs({
          db: database.db,
          analyticsDb: database.analyticsDb,
          analytics: () => analytics,
          boss: () => boss,
          mailer: mail?.mailer,
          appUrl: origin,
          unsubscribeKey: app.keys.alertUnsubscribe,
          digestUnsubscribeKey: app.keys.digestUnsubscribe,
          allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
          log: () => undefined,
        }),
        () => undefined,
      );
      evaluate = () => evaluateNow(boss);
    }
    if (options.collector) {
      collector = await startCollector({
        boss: queue!,
        pool: database.pool,
        config,
        uploadDir: uploadDirOf(config, dir),
        work: true,
        secretsKey,
        log: () => undefined,
      });
      app.deps.collector = collector;
    }
    // Bluesky's firehose and Mastodon's streams where collection runs, as server/main.ts starts them (but for the
    // Bluesky authors' handle resolution, which would ask the public AppView: the tests reach no network).
    if (config.SCRAPING_BLUESKY_STREAM && config.SCRAPING_WORKER === 'in-process') {
      stream = startTrackedBlueskyStream(database, app.billing.catalogue, config.JETSTREAM_URL, {
        log: () => undefined,
      });
    }
    if (config.SCRAPING_MASTODON_STREAM && config.SCRAPING_WORKER === 'in-process') {
      mastodon = startTrackedMastodonStreams(database, app.billing.catalogue, {
        allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
        log: () => undefined,
      });
    }
    return { app, db: database.db };
  };

  const stopAll = async () => {
    await stopApp();
    const running = postgres;
    postgres = undefined;
    await running?.stop().catch(() => undefined);
  };
  const close = async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  };

  // Kept as soon as it runs, so that a failed build still stops it.
  const pgStarting = startOnSomePort(pgDir).then((started) => (postgres = started));
  try {
    const [, pg] = await Promise.all([
      buildSpaFor(distDir, options.spa?.env ?? localSpaEnv(origin)),
      pgStarting,
    ]);
    const started = await startApp(pg);
    const server: RealServer = {
      origin,
      ...started,
      accessTokens,
      tokenFor: async (userId) => (await signInAs(server.db, accessTokens, userId)).accessToken,
      dataDir: dir,
      close,
      evaluateAlerts: () => evaluate(),
      async restart() {
        await stopAll();
        postgres = await startOnSomePort(pgDir);
        Object.assign(server, await startApp(postgres));
      },
    };
    return server;
  } catch (error) {
    await pgStarting.catch(() => undefined);
    await close();
    throw error;
  }
}
/** A call of the running app's API as Ana Owner, the demo workspace's owner (a new sign-in of hers). */
export async function asAna(server: RealServer, method: 'GET' | 'POST', url: string, payload?: object) {
  const anaId = (await demoUserIds(server.db)).get('ana@murmur.local')!;
  return server.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${await server.tokenFor(anaId)}` },
    ...(payload ? { payload } : {}),
  });
}
