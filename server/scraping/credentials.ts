// Source credentials (Reddit's client id and secret, a YouTube API key, an X bearer token), encrypted at rest.
//
// The fields are one JSON object sealed with AES-256-GCM (node:crypto) under SECRETS_KEY: a version byte, a random
// 12-byte IV, the 16-byte tag and the ciphertext, with the credential's id and kind as associated data (a sealed value
// copied onto another row does not open). Each row names the key that sealed it by a fingerprint, so a server given
// another key says so in words instead of failing to decrypt. The clear fields exist only in memory, for the
// request or run that uses them: the API never returns them and nothing logs them.
//
// Without SECRETS_KEY, APP_ENV local generates a key in DATA_DIR (as it does the signing key); elsewhere credentials
// cannot be stored, and a server that finds stored credentials and no key refuses to start.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type pg from 'pg';
import type { CredentialKind } from '@contract/scraping';
import type { ServerConfig } from '@server/config';
import { secretsKeyBytes } from '@server/config-fields';
import { PermanentError, QuotaSpentError } from './connectors/http';

const VERSION = 1;

/** The key's public name: the first 16 hex digits of SHA-256 over a label and the key. */
export const keyIdOf = (key: Buffer) =>
  createHash('sha256').update('murmur secrets key id\0').update(key).digest('hex').slice(0, 16);

const associated = (id: string, kind: string) => Buffer.from(`source_credentials\0${id}\0${kind}`);

export function seal(key: Buffer, id: string, kind: CredentialKind, fields: Record<string, string>): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associated(id, kind));
  const body = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** A credential that cannot be opened here: no key, another key, or a damaged value. Said in words. */
class CredentialLocked extends PermanentError {}

export function open(
  key: Buffer | undefined,
  row: { id: string; kind: string; secret: Buffer; keyId: string },
): Record<string, string> {
  if (!key) {
    throw new CredentialLocked(
      'These credentials cannot be read: the server has no SECRETS_KEY. Set the key they were stored with.',
    );
  }
  if (row.keyId !== keyIdOf(key)) {
    throw new CredentialLocked(
      'These credentials were stored with another SECRETS_KEY: set that key again, or enter the credentials anew.',
    );
  }
  const sealed = row.secret;
  try {
    if (sealed[0] !== VERSION) throw new Error('version');
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 13));
    decipher.setAAD(associated(row.id, row.kind));
    decipher.setAuthTag(sealed.subarray(13, 29));
    const text = Buffer.concat([decipher.update(sealed.subarray(29)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as Record<string, string>;
  } catch {
    throw new CredentialLocked('These credentials are damaged and cannot be read: enter them anew.');
  }
}

/** SECRETS_KEY; without it, APP_ENV local's key in DATA_DIR (made on first start); elsewhere none. */
export function loadSecretsKey(
  config: Pick<ServerConfig, 'SECRETS_KEY' | 'APP_ENV'>,
  dataDir: string,
): Buffer | undefined {
  if (config.SECRETS_KEY) return secretsKeyBytes(config.SECRETS_KEY);
  if (config.APP_ENV !== 'local') return undefined;
  const file = join(dataDir, 'secrets-key');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return secretsKeyBytes(readFileSync(file, 'utf8'));
}

/** Throws (the server or worker then does not start) when credentials are stored and there is no key to read them. */
export async function checkSecretsKey(pool: pg.Pool, key: Buffer | undefined): Promise<void> {
  if (key) return;
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM source_credentials');
  const stored = rows[0]?.n ?? 0;
  if (stored > 0) {
    throw new Error(
      `${stored} source credential${stored === 1 ? ' is' : 's are'} stored, and SECRETS_KEY is not set: ` +
        'set the key they were stored with (docs/scraping.md, "Credentials").',
    );
  }
}

/** A job's credential, opened, with its kind and daily quota. */
export async function loadCredential(db: pg.Pool | pg.PoolClient, key: Buffer | undefined, id: string) {
  const { rows } = await db.query<{
    id: string;
    kind: CredentialKind;
    secret: Buffer;
    key_id: string;
    daily_quota: number | null;
  }>('SELECT id, kind, secret, key_id, daily_quota FROM source_credentials WHERE id = $1', [id]);
  const row = rows[0];
  if (!row) {
    throw new PermanentError('The credentials this job uses were deleted: choose others for the job.');
  }
  return {
    id: row.id,
    kind: row.kind,
    dailyQuota: row.daily_quota,
    secret: open(key, { id: row.id, kind: row.kind, secret: row.secret, keyId: row.key_id }),
  };
}

const PACIFIC = 'America/Los_Angeles';

/** The quota day (YouTube's: midnight to midnight Pacific time) of an instant, as YYYY-MM-DD. */
export function quotaDayOf(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: PACIFIC, dateStyle: 'short' }).format(now);
}

/** Milliseconds from `now` to the next midnight Pacific time (the quota's reset), across DST changes. */
export function msUntilQuotaReset(now: Date): number {
  const today = quotaDayOf(now);
  // The next day's midnight in Pacific time is found by stepping an hour at a time past the day's change (23–25 h).
  let probe = now.getTime() - (now.getTime() % 3_600_000) + 3_600_000;
  while (quotaDayOf(new Date(probe)) === today) probe += 3_600_000;
  // The hour in which the day changed; midnight is on the hour in Pacific time.
  return Math.max(1_000, probe - now.getTime());
}

/**
 * Charges `units` to the credential's quota day, unless they would pass `dailyQuota` (then nothing is charged and
 * QuotaSpentError waits for the next quota day). Atomic: concurrent runs of one credential cannot pass the budget.
 */
export async function spendQuota(
  db: pg.Pool | pg.PoolClient,
  credential: { id: string; dailyQuota: number | null },
  units: number,
  now = new Date(),
): Promise<number> {
  if (credential.dailyQuota === null || units <= 0) return 0;
  const day = quotaDayOf(now);
  const { rows } = await db.query<{ units: number }>(
    `INSERT INTO source_quota_usage (credential_id, day, units) SELECT $1::uuid, $2::date, $3::int WHERE $3::int <= $4::int
       ON CONFLICT (credential_id, day) DO UPDATE SET units = source_quota_usage.units + EXCLUDED.units
         WHERE source_quota_usage.units + EXCLUDED.units <= $4::int
       RETURNING units`,
    [credential.id, day, units, credential.dailyQuota],
  );
  if (rows[0]) return rows[0].units;
  const wait = msUntilQuotaReset(now);
  throw new QuotaSpentError(
    wait,
    `The day's quota (${credential.dailyQuota.toLocaleString('en-US')} units) would be passed by the next request ` +
      `(${units} units); it resets at midnight Pacific time`,
  );
}

/** Units spent today (the quota day) per credential. */
export async function unitsSpentToday(db: pg.Pool | pg.PoolClient, ids: string[], now = new Date()) {
  if (ids.length === 0) return new Map<string, number>();
  const { rows } = await db.query<{ credential_id: string; units: number }>(
    'SELECT credential_id, units FROM source_quota_usage WHERE credential_id = ANY($1::uuid[]) AND day = $2',
    [ids, quotaDayOf(now)],
  );
  return new Map(rows.map((r) => [r.credential_id, r.units]));
}
