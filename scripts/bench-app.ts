// The app a bench calls, on a bench corpus (bench-corpus.ts): its analytics store started as `npm start` starts it,
// the app built on it with the answer cache off (every call computes) and no rate limit, a workspace in `zone` with one
// signed-in viewer whose access token is renewed every 5 minutes (a run on 10M posts outlasts one), and the corpus's
// size and newest post. `close` removes the workspace and user and stops what was started.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import type { AnalyticsService } from '@server/analytics/service';
import { openCorpus, startCorpusStore } from './bench-corpus';

export async function openBenchApp(size: number, zone: string, name: string) {
  const { url, server, dataDir } = await openCorpus(size);
  const database = await connect(url);
  const config = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
    // Every call computes: a repeated request would otherwise be answered from the dashboards' cache.
    ANSWER_CACHE_MB: '0',
    ANALYTICS_MAX_THREADS: process.env.ANALYTICS_MAX_THREADS,
  });
  let service: AnalyticsService | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let cleanUp = async () => {};
  const close = async () => {
    await cleanUp();
    await app?.close();
    await service?.stop();
    await database.close();
    await server?.stop();
  };
  try {
    // The store before the app, as `npm start` does after its seeding: a rebuild reads PostgreSQL's snapshot.
    service = await startCorpusStore(dataDir, database, config);
    const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
    app = await buildApp({ db: database.db, config, accessTokens, analytics: service });
    await app.ready();
    const { db } = database;
    const [user] = await db
      .insert(users)
      .values({ email: `${name}@example.com` })
      .returning();
    const [workspace] = await db.insert(workspaces).values({ name, timeZone: zone }).returning();
    cleanUp = async () => {
      await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
      await db.delete(users).where(eq(users.id, user!.id));
    };
    await db
      .insert(memberships)
      .values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'viewer' });
    const signedIn = await signInAs(database.db, accessTokens, user!.id);
    let token = signedIn.accessToken;
    let signedAt = Date.now();
    const bearer = async () => {
      if (Date.now() - signedAt > 300_000)
        [token, signedAt] = [await accessTokens.sign(user!.id, signedIn.signInId), Date.now()];
      return `Bearer ${token}`;
    };
    const stats = await db.execute<{ posts: number; latest: number }>(
      sql`SELECT count(*)::int AS posts, extract(epoch FROM max(posted_at))::float8 * 1000 AS latest FROM posts`,
    );
    return {
      app,
      service,
      database,
      workspaceId: workspace!.id,
      bearer,
      posts: stats.rows[0]!.posts,
      latest: new Date(stats.rows[0]!.latest),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
