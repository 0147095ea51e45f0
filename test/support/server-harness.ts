// A fresh database and a built app per test file, plus helpers to make users and their tokens.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
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
}

export async function createTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}) {
  const { databaseUrl, signingKey, secretsKey, ...appOptions } = options;
  let url = databaseUrl;
  if (!url) {
    const name = `test_${randomBytes(6).toString('hex')}`;
    const adminUrl = inject('pgAdminUrl');
    await ensureDatabase(adminUrl, name);
    const fresh = new URL(adminUrl);
    fresh.pathname = `/${name}`;
    url = fresh.toString();
  }
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
    async close() {
      await app.close();
      await replicas.close();
      await database.close();
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof createTestServer>>;
