// temporary profiling script (not committed)
import { randomBytes } from 'node:crypto';
async function main() {
  const { eq } = await import('drizzle-orm');
  const { buildApp } = await import('../server/app');
  const { loadServerConfig } = await import('../server/config');
  const { connect } = await import('../server/db/database');
  const { memberships, users, workspaces } = await import('../server/db/schema');
  const { createAccessTokens } = await import('../server/auth/access-token');
  const { openCorpus } = await import('./bench-corpus');
  const { url, server } = await openCorpus(200000);
  const database = await connect(url, { local: true });
  const config = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false', SOCIAL_RATE_LIMIT_PER_MINUTE: '100000' });
  const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
  const app = await buildApp({ db: database.db, analyticsDb: database.analyticsDb, config, accessTokens });
  const { db } = database;
  const [user] = await db.insert(users).values({ email: `prof-${Date.now()}@example.com` }).returning();
  const [ws] = await db.insert(workspaces).values({ name: 'prof', timeZone: 'America/New_York' }).returning();
  await db.insert(memberships).values({ workspaceId: ws!.id, userId: user!.id, privilege: 'viewer' });
  const token = await accessTokens.sign(user!.id);
  const payload = { workspace_id: ws!.id, query: 'nova', filters: { from: '2026-10-01T00:00:00Z', to: '2026-11-01T00:00:00Z' } };
  const req = () => app.inject({ method: 'POST', url: '/social/insights/overview', payload, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, deflate, br' } });
  const me = () => app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } });
  console.log((await req()).statusCode, (await me()).statusCode);
  for (const [name, fn] of [['overview hit', req]] as const) {
    for (let round = 0; round < 2; round++) {
      const c0 = process.cpuUsage(); const t0 = performance.now();
      const N = 2000;
      let i = 0;
      await Promise.all(Array.from({ length: 32 }, async () => { while (i++ < N) await fn(); }));
      const c = process.cpuUsage(c0);
      console.log(name, 'cpu µs/req', ((c.user + c.system) / N).toFixed(0), 'wall ms', (performance.now() - t0).toFixed(0));
    }
  }
  await app.close();
  await db.delete(workspaces).where(eq(workspaces.id, ws!.id));
  await db.delete(users).where(eq(users.id, user!.id));
  await database.close();
  await server?.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
