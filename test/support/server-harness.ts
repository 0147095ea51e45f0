// A fresh database and a built app per test file, with the analytics store running beside it as `npm start` runs it
// (on a temporary directory), plus helpers to make users and their tokens.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { AnalyticsService } from '@server/analytics/service';
import { buildApp, type AppDeps } from '@server/app';
import { loadServerConfig, type ServerConfig } from '@server/config';
import { connect, connectReplicas, ensureDatabase } from '@server/db/database';
import { users } from '@server/db/schema';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { longHistory } from '@test/support/billing.fixtures';

export interface TestServerOptions extends Pick<
  AppDeps,
  'spaDir' | 'paymentProvider' | 'logger' | 'reports'
> {
  /** This database (migrated here) instead of a fresh one in the tests' embedded PostgreSQL. */
  databaseUrl?: string;
  /** The access tokens' key; random when absent. Servers given the same key accept each other's tokens. */
  signingKey?: Uint8Array;
  /** The source credentials' key (SECRETS_KEY); random when absent, none when null. */
  secretsKey?: Buffer | null;
  /**
   * The analytics store (server/analytics/service.ts) beside the app, caught up before the server is returned: on
   * unless false, or unless the server is given another's database (databaseUrl). A read behind PostgreSQL waits for the applier (readWaitMs), so that a test reads its own writes.
   */
  store?: boolean;
}

/** The store's service as the test server runs it: applied at once after each write, reads waiting for it. */
async function startStore(database: { db: AppDeps['db']; pool: import('pg').Pool }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'murmur-test-store-'));
  const service = AnalyticsService.start({
    db: database.db,
    pool: database.pool,
    dataDir,
    coalesceMs: 0,
    readWaitMs: 30_000,
    log: () => {},
  });
  await service.caughtUpOnce();
  return {
    service,
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database in the tests' embedded PostgreSQL (migrated when first connected to). */
export async function freshDatabaseUrl(): Promise<string> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const adminUrl = inject('pgAdminUrl');
  await ensureDatabase(adminUrl, name);
  const fresh = new URL(adminUrl);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

export async function createTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}) {
  // A server on another's database stands for another process of the deployment: the store is the first one's.
  const { databaseUrl, signingKey, secretsKey, store = !databaseUrl, ...appOptions } = options;
  const url = databaseUrl ?? (await freshDatabaseUrl());
  const database = await connect(url);
  // Test files make hundreds of social calls per account within a minute; the per-account limit has its own test.
  // Their corpora sit on fixed dates (October–November and March 2026), which the trial's 90 days of history would clip
  // once today is far enough past them; the history limit's tests give their own plan file.
  const config: ServerConfig = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
    ...(env.BILLING_PLANS_FILE === undefined && longHistory()),
    ...env,
  });
  const accessTokens = createAccessTokens(signingKey ?? randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
  // DATABASE_READ_URL's pools, as npm start opens them (server/main.ts).
  const replicas = connectReplicas(config.DATABASE_READ_URL);
  const app: FastifyInstance = await buildApp({
    db: database.db,
    analyticsDb: database.analyticsDb,
    readReplicas: replicas.replicas,
    config,
    accessTokens,
    ...(secretsKey !== null && { secretsKey: secretsKey ?? randomBytes(32) }),
    ...appOptions,
  });
  await app.ready();
  const analytics = store ? await startStore(database) : null;
  app.deps.analytics = analytics?.service;

  return {
    app,
    /** The database's URL: another server (or pg-boss's own pool) on it stands for another process of the deployment. */
    databaseUrl: url,
    db: database.db,
    /** The light requests' pool (a test may hold one of its connections, e.g. for a lock). */
    pool: database.pool,
    analyticsDb: database.analyticsDb,
    config,
    accessTokens,
    async createUser(fields: { email?: string; firstName?: string; isStaff?: boolean } = {}) {
      const [user] = await database.db
        .insert(users)
        .values({ email: fields.email ?? `${randomBytes(4).toString('hex')}@example.com`, ...fields })
        .returning();
      return { ...user!, token: (await signInAs(database.db, accessTokens, user!.id)).accessToken };
    },
    /** An access token of a new sign-in of the user. */
    async tokenFor(userId: string) {
      return (await signInAs(database.db, accessTokens, userId)).accessToken;
    },
    /** The analytics store's service (undefined when started without one). */
    analytics: analytics?.service,
    /** Resolves once the store has applied every batch written so far (at once without a store). */
    async storeCaughtUp() {
      await analytics?.service.catchUp(60_000);
    },
    async close() {
      await app.close();
      await analytics?.close();
      await replicas.close();
      await database.close();
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof createTestServer>>;
