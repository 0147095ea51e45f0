// Development data and where the development provider exists: the seed is idempotent and leaves later changes alone;
// the provider and its vendor defaults exist only where the configuration says so; its keys survive a restart.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { loadServerConfig } from '@server/config';
import { identities, memberships, users, workspaces } from '@server/db/schema';
import { DEMO_ACCOUNTS, DEMO_WORKSPACE } from '@server/dev-oidc/accounts';
import { loadDevOidcSecrets } from '@server/dev-oidc/keys';
import { demoUserIds, seedDevData } from '@server/seed';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer({ DEV_OIDC: 'true', DEV_OIDC_ISSUER: 'http://127.0.0.1:9/oidc' });
});
afterAll(() => server.close());

const count = async (table: typeof users | typeof identities | typeof memberships | typeof workspaces) => {
  const [row] = await server.db.select({ n: sql<number>`count(*)::int` }).from(table);
  return row!.n;
};

describe('seedDevData', () => {
  it('creates the demo accounts, their identities and Murmur Demo once, however often it runs', async () => {
    expect(await seedDevData(server.db, server.config)).toEqual({ seeded: true, createdWorkspace: true });
    const before = {
      users: await count(users),
      identities: await count(identities),
      memberships: await count(memberships),
      workspaces: await count(workspaces),
    };
    expect(before.users).toBe(DEMO_ACCOUNTS.length);
    expect(before.identities).toBe(DEMO_ACCOUNTS.length * 2);

    const again = await Promise.all([
      seedDevData(server.db, server.config),
      seedDevData(server.db, server.config),
    ]);
    expect(again).toEqual([
      { seeded: true, createdWorkspace: false },
      { seeded: true, createdWorkspace: false },
    ]);
    expect({
      users: await count(users),
      identities: await count(identities),
      memberships: await count(memberships),
      workspaces: await count(workspaces),
    }).toEqual(before);

    const [demo] = await server.db.select().from(workspaces).where(eq(workspaces.id, DEMO_WORKSPACE.id));
    expect(demo).toMatchObject({ name: 'Murmur Demo', planExpiredAt: null });
    const ids = await demoUserIds(server.db);
    const roles = await server.db
      .select({ userId: memberships.userId, privilege: memberships.privilege })
      .from(memberships)
      .where(eq(memberships.workspaceId, DEMO_WORKSPACE.id));
    expect(Object.fromEntries(roles.map((r) => [r.userId, r.privilege]))).toEqual({
      [ids.get('ana@murmur.local')!]: 'owner',
      [ids.get('ben@murmur.local')!]: 'manager',
      [ids.get('cleo@murmur.local')!]: 'viewer',
    });
    const [sam] = await server.db
      .select()
      .from(users)
      .where(eq(users.id, ids.get('sam@murmur.local')!));
    expect(sam!.isStaff).toBe(true);
  });

  it('does not undo changes made in the app', async () => {
    const ids = await demoUserIds(server.db);
    const ben = and(
      eq(memberships.workspaceId, DEMO_WORKSPACE.id),
      eq(memberships.userId, ids.get('ben@murmur.local')!),
    );
    const cleo = and(
      eq(memberships.workspaceId, DEMO_WORKSPACE.id),
      eq(memberships.userId, ids.get('cleo@murmur.local')!),
    );
    await server.db.update(memberships).set({ privilege: 'viewer' }).where(ben);
    await server.db.delete(memberships).where(cleo);
    await seedDevData(server.db, server.config);
    expect((await server.db.select().from(memberships).where(ben))[0]?.privilege).toBe('viewer');
    expect(await server.db.select().from(memberships).where(cleo)).toEqual([]);
  });

  it('does nothing when the development provider is off', async () => {
    const off = loadServerConfig({ APP_ENV: 'qa' });
    expect(await seedDevData(server.db, off)).toEqual({ seeded: false, createdWorkspace: false });
  });
});

describe('where the development provider exists', () => {
  it('is on by default in local and dev, off in qa and prod, DEV_OIDC decides when set, never in prod', () => {
    const on = (env: Record<string, string>) => loadServerConfig(env).DEV_OIDC;
    expect([on({}), on({ APP_ENV: 'dev' }), on({ APP_ENV: 'qa' }), on({ APP_ENV: 'prod' })]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(() => on({ APP_ENV: 'prod', DEV_OIDC: 'true' })).toThrow(/cannot run with APP_ENV=prod/);
    expect(on({ APP_ENV: 'local', DEV_OIDC: 'false' })).toBe(false);
  });

  it('points unconfigured vendors at itself and leaves configured ones alone', () => {
    const local = loadServerConfig({ PORT: '8787' });
    expect(local).toMatchObject({
      DEV_OIDC_ISSUER: 'http://localhost:8787/oidc',
      GOOGLE_CLIENT_ID: 'murmur-dev-google',
      GOOGLE_JWKS_URL: 'http://localhost:8787/oidc/jwks',
      GOOGLE_ISSUERS: ['http://localhost:8787/oidc'],
      MICROSOFT_CLIENT_ID: 'murmur-dev-microsoft',
      MICROSOFT_ISSUER_TEMPLATE: 'http://localhost:8787/oidc',
    });
    const real = loadServerConfig({ GOOGLE_CLIENT_ID: 'real.apps.googleusercontent.com' });
    expect(real.GOOGLE_JWKS_URL).toBe('https://www.googleapis.com/oauth2/v3/certs');
    expect(real.MICROSOFT_CLIENT_ID).toBe('murmur-dev-microsoft');
    const prod = loadServerConfig({ APP_ENV: 'prod' });
    expect(prod.GOOGLE_CLIENT_ID).toBeUndefined();
    expect(prod.MICROSOFT_ISSUER_TEMPLATE).toBe('https://login.microsoftonline.com/{tid}/v2.0');
    expect(() => loadServerConfig({ DEV_OIDC_ISSUER: 'http://localhost:8787/elsewhere' })).toThrow(
      /DEV_OIDC_ISSUER/,
    );
  });

  it('is not mounted when off', async () => {
    const off = await createTestServer();
    try {
      const response = await off.app.inject({ method: 'GET', url: '/oidc/.well-known/openid-configuration' });
      expect(response.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('keeps its keys in DATA_DIR, readable only by the server', () => {
    const dir = mkdtempSync(join(tmpdir(), 'murmur-oidc-keys-'));
    try {
      const first = loadDevOidcSecrets(dir);
      expect(loadDevOidcSecrets(dir)).toEqual(first);
      expect(statSync(join(dir, 'dev-oidc-keys.json')).mode & 0o777).toBe(0o600);
      expect(loadDevOidcSecrets(undefined)).not.toEqual(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
