// Opaque refresh tokens (RFC 9700 §4.14.2): random, stored only as SHA-256 hashes, one family per sign-in, rotated on
// every use. Presenting a token that was already rotated means two parties hold the family: all of it is revoked —
// except within a short grace period after the rotation (Okta's and Auth0's reuse interval), when it is a retry
// whose answer was lost or two requests of one client at once, and gets the same successor again.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { refreshTokens } from '@server/db/schema';
import { SIGN_IN_ENDED_CHANNEL } from './sign-in-state';

/** The database or a transaction on it: callers decide what a write belongs to. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** 32 random bytes in base64url, as handed out; anything else is rejected without touching the database. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

const hash = (token: string) => createHash('sha256').update(token).digest('base64url');

export const isWellFormed = (token: string | null): token is string =>
  token !== null && TOKEN_SHAPE.test(token);

async function insertToken(
  tx: DbOrTx,
  row: { familyId: string; userId: string; expiresAt: Date | ReturnType<typeof sql> },
  token = randomBytes(32).toString('base64url'),
): Promise<string> {
  await tx.insert(refreshTokens).values({ ...row, tokenHash: hash(token) });
  return token;
}

/** How rotation treats a rotated token presented again. */
export interface RotationPolicy {
  /** Seconds after a rotation during which the rotated token gets the same successor again; 0 turns it off. */
  graceSeconds: number;
  /**
   * The server's secret for successors: a token's successor is HMAC(secret, token), so the same successor can be
   * handed out again without storing it (only hashes are stored), and nobody without the secret can derive it.
   */
  secret: Uint8Array;
}

const successorOf = (policy: RotationPolicy, token: string) =>
  createHmac('sha256', policy.secret).update(token).digest('base64url');

/**
 * Starts a family for a new sign-in; its end is fixed now and never moves. The family's id is the sign-in's: access
 * tokens carry it, and live only as long as the family does.
 */
export async function startFamily(
  tx: DbOrTx,
  userId: string,
  lifetimeDays: number,
): Promise<{ signInId: string; refreshToken: string }> {
  const signInId = randomUUID();
  const refreshToken = await insertToken(tx, {
    familyId: signInId,
    userId,
    expiresAt: sql`now() + make_interval(days => ${lifetimeDays})`,
  });
  return { signInId, refreshToken };
}

export type RotationResult =
  | { outcome: 'rotated'; userId: string; signInId: string; refreshToken: string }
  | { outcome: 'invalid' }
  | { outcome: 'reused'; signInId: string };

/**
 * Revokes every token of a family and tells every server process, when the transaction commits, that its access
 * tokens are to be refused (server/auth/sign-in-state.ts).
 */
async function revokeFamily(tx: DbOrTx, familyId: string) {
  await tx
    .update(refreshTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
  await tx.execute(sql`SELECT pg_notify(${SIGN_IN_ENDED_CHANNEL}, ${familyId})`);
}

/**
 * Swaps a live token for a new one in the same family. The row lock makes a second, concurrent use of the same token
 * wait and then see it rotated, so at most one of them succeeds. A reuse commits the family's revocation.
 */
export function rotate(db: Db, token: string, policy: RotationPolicy): Promise<RotationResult> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        id: refreshTokens.id,
        familyId: refreshTokens.familyId,
        userId: refreshTokens.userId,
        expiresAt: refreshTokens.expiresAt,
        rotatedAt: refreshTokens.rotatedAt,
        revokedAt: refreshTokens.revokedAt,
        expired: sql<boolean>`${refreshTokens.expiresAt} <= now()`,
        inGrace: sql<boolean>`${refreshTokens.rotatedAt} > now() - make_interval(secs => ${policy.graceSeconds})`,
      })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, hash(token)))
      .for('update');
    if (!row || row.revokedAt || row.expired) return { outcome: 'invalid' };
    if (row.rotatedAt) {
      // Within the grace period: the successor handed out at the rotation, again (its row is already there).
      if (row.inGrace) {
        const refreshToken = successorOf(policy, token);
        return { outcome: 'rotated', userId: row.userId, signInId: row.familyId, refreshToken };
      }
      await revokeFamily(tx, row.familyId);
      return { outcome: 'reused', signInId: row.familyId };
    }
    await tx
      .update(refreshTokens)
      .set({ rotatedAt: sql`now()` })
      .where(eq(refreshTokens.id, row.id));
    const refreshToken = await insertToken(
      tx,
      { familyId: row.familyId, userId: row.userId, expiresAt: row.expiresAt },
      successorOf(policy, token),
    );
    return { outcome: 'rotated', userId: row.userId, signInId: row.familyId, refreshToken };
  });
}

/**
 * Ends the sign-in the token belongs to and returns its id; a token that matches nothing changes nothing (null). Ending
 * it again (a second sign-out) signals it again, which is harmless.
 */
export function revokeFamilyOf(db: Db, token: string): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ familyId: refreshTokens.familyId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, hash(token)));
    if (!row) return null;
    await revokeFamily(tx, row.familyId);
    return row.familyId;
  });
}

/**
 * Deletes the tokens of families that have ended (past their fixed end), a batch at a time so no statement holds
 * many row locks. Safe at any moment: an ended family's token is refused whether its row exists or not, and a live
 * family keeps every row, rotated ones included, which reuse detection needs. Returns how many rows went.
 */
export async function purgeEndedFamilies(db: Db, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.execute(sql`DELETE FROM refresh_tokens WHERE id IN (
        SELECT id FROM refresh_tokens WHERE expires_at <= now() LIMIT ${batchSize})`);
    const deleted = result.rowCount ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
