// Sign-in nonces: the server hands one out, the vendor signs it into the ID token, and login spends it once.
// This binds an ID token to a sign-in this server started, so a token captured elsewhere cannot be replayed.
import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { loginNonces } from '@server/db/schema';
import type { DbOrTx } from './refresh-tokens';

export async function issueNonce(db: Db, ttlSeconds: number): Promise<string> {
  // Expired nonces can never be spent, so they are only clutter; clearing them here keeps the table small.
  await db.delete(loginNonces).where(lt(loginNonces.expiresAt, sql`now()`));
  const nonce = randomBytes(32).toString('base64url');
  await db.insert(loginNonces).values({
    nonce,
    expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`,
  });
  return nonce;
}

/** Marks the nonce used; false when it was never issued, is used already or has expired. */
export async function consumeNonce(tx: DbOrTx, nonce: string): Promise<boolean> {
  // One conditional UPDATE: of two concurrent logins with the same nonce, only one sees the row still unused.
  const spent = await tx
    .update(loginNonces)
    .set({ usedAt: sql`now()` })
    .where(
      and(eq(loginNonces.nonce, nonce), isNull(loginNonces.usedAt), gt(loginNonces.expiresAt, sql`now()`)),
    )
    .returning({ nonce: loginNonces.nonce });
  return spent.length === 1;
}
