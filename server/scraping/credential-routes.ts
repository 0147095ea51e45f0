// The scraping area's credentials, under /api/scraping/credentials (registered inside scrapingRoutes, so staff only
// like the rest of it): list, add, replace, delete, and "test connection". The fields are write-only: an answer says
// whether they can be opened, never what they are.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import type pg from 'pg';
import { SOURCE_CREDENTIAL, type CredentialKind, type SourceParams } from '@contract/scraping';
import {
  createCredentialBodySchema,
  credentialListSchema,
  credentialParamsSchema,
  credentialSchema,
  credentialSecretSchemas,
  credentialTestSchema,
  updateCredentialBodySchema,
  type CredentialTestResult,
  type SourceCredential,
} from '@contract/source-credentials';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { httpOptionsOf, sourceUrlsOf } from './collector';
import { CREDENTIAL_TESTS } from './connectors';
import { QuotaSpentError, RateLimitedError } from './connectors/http';
import { keyIdOf, open, seal, spendQuota, unitsSpentToday } from './credentials';

const tags = ['scraping'];

const notFound = () => new ApiError(404, 'credential_not_found', 'No such credentials.');
const noKey = () =>
  new ApiError(
    409,
    'secrets_key_missing',
    'Credentials cannot be stored: the server has no SECRETS_KEY to encrypt them with (docs/scraping.md).',
  );

interface CredentialRow {
  id: string;
  kind: CredentialKind;
  name: string;
  secret: Buffer;
  key_id: string;
  daily_quota: number | null;
  last_test_at: Date | null;
  last_test_ok: boolean | null;
  last_test_message: string | null;
  created_at: Date;
  updated_at: Date;
  jobs: number;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
const SOURCE_NAMES: Record<CredentialKind, string> = { reddit: 'Reddit', youtube: 'YouTube', x: 'X' };

async function rowsOf(pool: pg.Pool, id?: string): Promise<CredentialRow[]> {
  const { rows } = await pool.query<CredentialRow>(
    `SELECT c.*, (SELECT count(*)::int FROM scrape_jobs j
                    WHERE j.state <> 'cancelled' AND j.params->>'credential_id' = c.id::text) AS jobs
       FROM source_credentials c ${id ? 'WHERE c.id = $1' : ''} ORDER BY c.created_at DESC`,
    id ? [id] : [],
  );
  return rows;
}

function toCredential(row: CredentialRow, key: Buffer | undefined, spent: Map<string, number>) {
  let problem: string | null = null;
  try {
    open(key, { id: row.id, kind: row.kind, secret: row.secret, keyId: row.key_id });
  } catch (error) {
    problem = (error as Error).message;
  }
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    usable: problem === null,
    problem,
    daily_quota: row.daily_quota,
    spent_today: row.daily_quota === null ? null : (spent.get(row.id) ?? 0),
    jobs: row.jobs,
    last_test:
      row.last_test_at && row.last_test_ok !== null
        ? { ok: row.last_test_ok, message: row.last_test_message ?? '', at: seconds(row.last_test_at) }
        : null,
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  } satisfies SourceCredential;
}

/** A job's credential must exist and be of the kind its source needs (400 otherwise). */
export async function checkJobCredential(pool: pg.Pool, params: SourceParams) {
  const kind = SOURCE_CREDENTIAL[params.source];
  if (!kind || !('credential_id' in params)) return;
  const { rows } = await pool.query<{ kind: string }>('SELECT kind FROM source_credentials WHERE id = $1', [
    params.credential_id,
  ]);
  if (rows[0]?.kind !== kind) {
    throw new ApiError(
      400,
      'invalid_request',
      `Choose ${SOURCE_NAMES[kind]} credentials for this source (Settings: Credentials, in the scraping area).`,
    );
  }
}

/** What a failed test says, in words. */
function testFailure(error: unknown, kind: CredentialKind): string {
  if (error instanceof QuotaSpentError) {
    return `No quota left today: ${error.message}.`;
  }
  if (error instanceof RateLimitedError) {
    return `${SOURCE_NAMES[kind]} is rate-limiting these credentials: try again in ${Math.ceil(error.waitMs / 1000)} s.`;
  }
  return (error as Error).message;
}

export const credentialRoutes: FastifyPluginAsyncZod = async (app) => {
  const { config } = app.deps;
  const pool = (app.deps.db as unknown as { $client: pg.Pool }).$client;
  const key = app.deps.secretsKey;

  const answer = async (id: string) => {
    const [row] = await rowsOf(pool, id);
    if (!row) throw notFound();
    return toCredential(row, key, await unitsSpentToday(pool, [id]));
  };

  app.get(
    '/scraping/credentials',
    {
      schema: {
        tags,
        security: bearer,
        summary:
          'Source credentials (Reddit, YouTube, X): names, kinds, quota, last test; never their fields',
        response: { 200: credentialListSchema, ...errorResponses(403) },
      },
    },
    async () => {
      const rows = await rowsOf(pool);
      const spent = await unitsSpentToday(
        pool,
        rows.map((r) => r.id),
      );
      return { credentials: rows.map((row) => toCredential(row, key, spent)), can_store: key !== undefined };
    },
  );

  app.post(
    '/scraping/credentials',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Store credentials for a source, encrypted with SECRETS_KEY (409 without one)',
        body: createCredentialBodySchema,
        response: { 201: credentialSchema, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) => {
      if (!key) throw noKey();
      const body = request.body;
      const id = randomUUID();
      await pool.query(
        `INSERT INTO source_credentials (id, kind, name, secret, key_id, daily_quota, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          id,
          body.kind,
          body.name,
          seal(key, id, body.kind, body.secret as Record<string, string>),
          keyIdOf(key),
          body.kind === 'youtube' ? body.daily_quota : null,
          request.userId,
        ],
      );
      return reply.status(201).send(await answer(id));
    },
  );

  app.patch(
    '/scraping/credentials/:credentialId',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Rename credentials, replace their fields (all of them) or change the daily quota (YouTube)',
        params: credentialParamsSchema,
        body: updateCredentialBodySchema,
        response: { 200: credentialSchema, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const { credentialId } = request.params;
      const { name, secret, daily_quota } = request.body;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ kind: CredentialKind }>(
          'SELECT kind FROM source_credentials WHERE id = $1 FOR UPDATE',
          [credentialId],
        );
        const kind = rows[0]?.kind;
        if (!kind) throw notFound();
        if (secret && !credentialSecretSchemas[kind].safeParse(secret).success) {
          throw new ApiError(
            400,
            'invalid_request',
            `These are not the fields of ${SOURCE_NAMES[kind]} credentials.`,
          );
        }
        if (daily_quota !== undefined && kind !== 'youtube') {
          throw new ApiError(400, 'invalid_request', 'Only YouTube credentials have a daily quota.');
        }
        if (secret && !key) throw noKey();
        await client.query(
          `UPDATE source_credentials SET name = coalesce($2, name), daily_quota = coalesce($3, daily_quota),
             secret = coalesce($4, secret), key_id = coalesce($5, key_id),
             last_test_at = CASE WHEN $4::bytea IS NULL THEN last_test_at END,
             last_test_ok = CASE WHEN $4::bytea IS NULL THEN last_test_ok END,
             last_test_message = CASE WHEN $4::bytea IS NULL THEN last_test_message END,
             updated_at = now()
           WHERE id = $1`,
          [
            credentialId,
            name ?? null,
            daily_quota ?? null,
            secret && key ? seal(key, credentialId, kind, secret as Record<string, string>) : null,
            secret && key ? keyIdOf(key) : null,
          ],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
      return answer(credentialId);
    },
  );

  app.delete(
    '/scraping/credentials/:credentialId',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'Delete credentials (409 while a job that is not cancelled uses them)',
        params: credentialParamsSchema,
        response: { 204: z.null(), ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const [row] = await rowsOf(pool, request.params.credentialId);
      if (!row) throw notFound();
      if (row.jobs > 0) {
        throw new ApiError(
          409,
          'credential_in_use',
          `${row.jobs} job${row.jobs === 1 ? ' uses' : 's use'} these credentials: cancel ${row.jobs === 1 ? 'it' : 'them'} or give ${row.jobs === 1 ? 'it' : 'them'} others first.`,
        );
      }
      await pool.query('DELETE FROM source_credentials WHERE id = $1', [row.id]);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/scraping/credentials/:credentialId/test',
    {
      schema: {
        tags,
        security: bearer,
        summary:
          'Test the connection: one cheap request with the credentials; says in words what works or not',
        params: credentialParamsSchema,
        response: { 200: credentialTestSchema, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const [row] = await rowsOf(pool, request.params.credentialId);
      if (!row) throw notFound();
      let result: CredentialTestResult;
      const at = Math.floor(Date.now() / 1000);
      try {
        const secret = open(key, { id: row.id, kind: row.kind, secret: row.secret, keyId: row.key_id });
        const message = await CREDENTIAL_TESTS[row.kind](secret, {
          http: httpOptionsOf(config),
          urls: sourceUrlsOf(config),
          signal: AbortSignal.timeout(config.SCRAPING_HTTP_TIMEOUT_SECONDS * 2_000),
          spend: async (units) => {
            await spendQuota(pool, { id: row.id, dailyQuota: row.daily_quota }, units);
          },
        });
        result = { ok: true, message, at };
      } catch (error) {
        result = { ok: false, message: testFailure(error, row.kind), at };
      }
      await pool.query(
        `UPDATE source_credentials SET last_test_at = to_timestamp($2), last_test_ok = $3, last_test_message = $4
           WHERE id = $1`,
        [row.id, result.at, result.ok, result.message.slice(0, 1_000)],
      );
      return result;
    },
  );
};
