// Source credentials: staff only; the fields encrypted at rest (the database holds no byte of them in the clear) and
// never answered; a server with another key or none says so in words and refuses to start; a job must name
// credentials of its source's kind; credentials in use cannot be deleted; YouTube's daily quota is charged atomically
// and resets at midnight Pacific time.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { QuotaSpentError } from '@server/scraping/connectors/http';
import { checkSecretsKey, msUntilQuotaReset, quotaDayOf, spendQuota } from '@server/scraping/credentials';
import { loadServerConfig } from '@server/config';
import { secretsKeyBytes } from '@server/config-fields';

let server: TestServer;
let pool: pg.Pool;
let staff: { token: string };
let analyst: { token: string };
const key = randomBytes(32);

const auth = (user: { token: string }) => ({ authorization: `Bearer ${user.token}` });

beforeAll(async () => {
  server = await createTestServer({}, { secretsKey: key });
  pool = server.pool as unknown as pg.Pool;
  staff = await server.createUser({ isStaff: true });
  analyst = await server.createUser();
});
afterAll(() => server.close());

async function create(payload: Record<string, unknown>, user = staff) {
  return server.app.inject({
    method: 'POST',
    url: '/api/scraping/credentials',
    headers: auth(user),
    payload,
  });
}

describe('storing credentials', () => {
  it('keeps the fields encrypted, answers without them, and lists them for staff only', async () => {
    const secret = {
      client_id: 'app-id-12345',
      client_secret: 'very-secret-value-67890',
      username: 'murmur_bot',
    };
    const response = await create({ kind: 'reddit', name: 'Reddit app', secret });
    expect(response.statusCode, response.body).toBe(201);
    const created = response.json<Record<string, unknown>>();
    expect(created).toMatchObject({
      kind: 'reddit',
      name: 'Reddit app',
      usable: true,
      problem: null,
      jobs: 0,
    });
    expect(response.body).not.toContain('very-secret-value');
    expect(response.body).not.toContain('app-id-12345');

    // At rest: nothing of the fields in the row, in any encoding the column could be read as.
    const { rows } = await pool.query<{ secret: Buffer; key_id: string }>(
      'SELECT secret, key_id FROM source_credentials WHERE id = $1',
      [created.id],
    );
    const stored = rows[0]!.secret;
    expect(stored.includes(Buffer.from('very-secret-value'))).toBe(false);
    expect(stored.toString('base64')).not.toContain(Buffer.from('very-secret-value').toString('base64'));
    expect(stored.length).toBeGreaterThan(29);

    const list = await server.app.inject({
      method: 'GET',
      url: '/api/scraping/credentials',
      headers: auth(staff),
    });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('very-secret-value');
    expect(list.json()).toMatchObject({ can_store: true });

    for (const [method, url] of [
      ['GET', '/api/scraping/credentials'],
      ['POST', `/api/scraping/credentials/${created.id as string}/test`],
      ['DELETE', `/api/scraping/credentials/${created.id as string}`],
    ] as const) {
      const refused = await server.app.inject({ method, url, headers: auth(analyst) });
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'staff_only' });
    }
    expect(
      (await create({ kind: 'x', name: 'X', secret: { bearer_token: 'AAAA' } }, analyst)).statusCode,
    ).toBe(403);
  });

  it('validates each kind’s fields and refuses a quota on kinds without one', async () => {
    const missing = await create({ kind: 'reddit', name: 'No secret', secret: { client_id: 'abc' } });
    expect(missing.statusCode).toBe(400);
    const spaces = await create({ kind: 'youtube', name: 'Spaces', secret: { api_key: 'has spaces in it' } });
    expect(spaces.statusCode).toBe(400);
    const quota = await create({ kind: 'x', name: 'X', secret: { bearer_token: 'AAAA' }, daily_quota: 5 });
    expect(quota.statusCode).toBe(400);
    const youtube = await create({ kind: 'youtube', name: 'YouTube', secret: { api_key: 'AIzaSyExample' } });
    expect(youtube.json()).toMatchObject({ daily_quota: 10_000, spent_today: 0 });
    const wrongFields = await server.app.inject({
      method: 'PATCH',
      url: `/api/scraping/credentials/${youtube.json<{ id: string }>().id}`,
      headers: auth(staff),
      payload: { secret: { bearer_token: 'BBBB' } },
    });
    expect(wrongFields.statusCode).toBe(400);
    expect(wrongFields.json<{ message: string }>().message).toBe(
      'These are not the fields of YouTube credentials.',
    );
  });

  it('says in words when another key or no key is configured, and the server refuses to start without one', async () => {
    const id = (await create({ kind: 'x', name: 'X token', secret: { bearer_token: 'token-abc' } })).json<{
      id: string;
    }>().id;
    const other = await createTestServer(
      {},
      { databaseUrl: server.databaseUrl, secretsKey: randomBytes(32) },
    );
    const none = await createTestServer({}, { databaseUrl: server.databaseUrl, secretsKey: null });
    try {
      const otherStaff = await other.createUser({ isStaff: true });
      const listed = await other.app.inject({
        method: 'GET',
        url: '/api/scraping/credentials',
        headers: auth(otherStaff),
      });
      const row = listed.json<{ credentials: { id: string; usable: boolean; problem: string }[] }>();
      expect(row.credentials.find((c) => c.id === id)).toMatchObject({
        usable: false,
        problem:
          'These credentials were stored with another SECRETS_KEY: set that key again, or enter the credentials anew.',
      });
      const tested = await other.app.inject({
        method: 'POST',
        url: `/api/scraping/credentials/${id}/test`,
        headers: auth(otherStaff),
      });
      expect(tested.json()).toMatchObject({ ok: false });

      const noneStaff = await none.createUser({ isStaff: true });
      const refused = await none.app.inject({
        method: 'POST',
        url: '/api/scraping/credentials',
        headers: auth(noneStaff),
        payload: { kind: 'x', name: 'X', secret: { bearer_token: 'AAAA' } },
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'secrets_key_missing' });
    } finally {
      await other.close();
      await none.close();
    }
    await expect(checkSecretsKey(pool, undefined)).rejects.toThrow(
      /source credentials are stored, and SECRETS_KEY is not set/,
    );
    await expect(checkSecretsKey(pool, key)).resolves.toBeUndefined();
  });

  it(
    'a worker process refuses to start without the key, and starts with it',
    { timeout: 60_000 },
    async () => {
      const start = (secretsKey?: string) =>
        new Promise<{ code: number | null; output: string }>((done) => {
          const env: Record<string, string | undefined> = {
            ...process.env,
            APP_ENV: 'qa',
            DEV_OIDC: 'false',
            DATABASE_URL: server.databaseUrl,
            SECRETS_KEY: secretsKey,
          };
          if (!secretsKey) delete env.SECRETS_KEY;
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', resolve(import.meta.dirname, '../../../server/worker.ts')],
            {
              env,
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let output = '';
          const read = (chunk: Buffer) => {
            output += chunk.toString();
            // Running: stop it; the test only needs to see that it started.
            if (output.includes('Collection worker running')) child.kill('SIGTERM');
          };
          child.stdout.on('data', read);
          child.stderr.on('data', read);
          child.on('exit', (code) => done({ code, output }));
        });
      const refused = await start();
      expect(refused.code).toBe(1);
      expect(refused.output).toMatch(
        /The worker could not start: \d+ source credentials are stored, and SECRETS_KEY is not set/,
      );
      const started = await start(key.toString('base64'));
      expect(started.output).toContain('Collection worker running');
    },
  );

  it('reads SECRETS_KEY as 32 bytes of base64 or base64url and refuses anything else', () => {
    const bytes = randomBytes(32);
    expect(secretsKeyBytes(bytes.toString('base64'))?.equals(bytes)).toBe(true);
    expect(secretsKeyBytes(bytes.toString('base64url'))?.equals(bytes)).toBe(true);
    expect(secretsKeyBytes(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(() => loadServerConfig({ SECRETS_KEY: 'not a key' })).toThrow(
      /SECRETS_KEY: Must be 32 bytes in base64 or base64url/,
    );
  });
});

describe('jobs and their credentials', () => {
  it('refuses a job whose credentials are missing or of another kind, and keeps credentials in use', async () => {
    const x = (await create({ kind: 'x', name: 'X for jobs', secret: { bearer_token: 'token-xyz' } })).json<{
      id: string;
    }>().id;
    const job = (credential_id: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/scraping/jobs',
        headers: auth(staff),
        payload: {
          name: 'Reddit coffee',
          params: { source: 'reddit_search', credential_id, query: 'coffee' },
        },
      });
    const wrongKind = await job(x);
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json<{ message: string }>().message).toMatch(/^Choose Reddit credentials/);
    expect((await job('00000000-0000-4000-8000-000000000000')).statusCode).toBe(400);

    const created = await server.app.inject({
      method: 'POST',
      url: '/api/scraping/jobs',
      headers: auth(staff),
      payload: { name: 'X coffee', params: { source: 'x_search', credential_id: x, query: 'coffee' } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const inUse = await server.app.inject({
      method: 'DELETE',
      url: `/api/scraping/credentials/${x}`,
      headers: auth(staff),
    });
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json()).toMatchObject({ error: 'credential_in_use' });
    await server.app.inject({
      method: 'POST',
      url: `/api/scraping/jobs/${created.json<{ id: string }>().id}/cancel`,
      headers: auth(staff),
    });
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/api/scraping/credentials/${x}`,
      headers: auth(staff),
    });
    expect(deleted.statusCode).toBe(204);
  });
});

describe('YouTube’s daily quota', () => {
  it('charges units up to the budget, never past it even when runs charge at once, and resets the next day', async () => {
    const id = (
      await create({ kind: 'youtube', name: 'Quota', secret: { api_key: 'AIzaQuota' }, daily_quota: 250 })
    ).json<{ id: string }>().id;
    const credential = { id, dailyQuota: 250 };
    const now = new Date('2026-11-24T12:00:00Z');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => spendQuota(pool, credential, 100, now)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(QuotaSpentError);
    // Noon UTC is 04:00 in Los Angeles (PST): the quota resets 20 hours later.
    expect((refused.reason as QuotaSpentError).waitMs).toBe(20 * 3_600_000);
    await expect(spendQuota(pool, credential, 50, now)).resolves.toBe(250);
    await expect(spendQuota(pool, credential, 1, now)).rejects.toBeInstanceOf(QuotaSpentError);
    await expect(spendQuota(pool, credential, 100, new Date('2026-11-25T08:00:00Z'))).resolves.toBe(100);
  });

  it('lists the units spent on the current Pacific quota day, and not those of another day', async () => {
    const id = (
      await create({ kind: 'youtube', name: 'Listed', secret: { api_key: 'AIzaListed' }, daily_quota: 500 })
    ).json<{ id: string }>().id;
    const credential = { id, dailyQuota: 500 };
    await spendQuota(pool, credential, 100, new Date(Date.now() - 2 * 86_400_000));
    const day = quotaDayOf(new Date());
    await spendQuota(pool, credential, 7, new Date());
    const listed = await server.app.inject({
      method: 'GET',
      url: '/api/scraping/credentials',
      headers: auth(staff),
    });
    const row = listed.json<{ credentials: { id: string; spent_today: number }[] }>().credentials;
    // Exact unless Pacific midnight fell between the charge and the listing (then the new day has nothing yet).
    const expected = quotaDayOf(new Date()) === day ? 7 : 0;
    expect(row.find((c) => c.id === id)?.spent_today).toBe(expected);
  });

  it('finds the Pacific midnight across the DST changes', () => {
    // 2026-03-08: clocks go forward in Los Angeles; the day before is 23 h from its midnight.
    expect(quotaDayOf(new Date('2026-03-08T07:59:00Z'))).toBe('2026-03-07');
    expect(quotaDayOf(new Date('2026-03-08T08:00:00Z'))).toBe('2026-03-08');
    expect(msUntilQuotaReset(new Date('2026-03-08T10:00:00Z'))).toBe(21 * 3_600_000);
    // 2026-11-01: clocks go back; midnight of the 2nd is 08:00 UTC.
    expect(msUntilQuotaReset(new Date('2026-11-01T12:30:00Z'))).toBe(19.5 * 3_600_000);
  });
});
