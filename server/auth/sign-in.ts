// Turns a verified ID token into a signed-in user: spends the nonce, finds or creates the user by identity (never by
// e-mail, which people change and vendors reassign) and starts a refresh-token family, all in one transaction.
import { and, eq } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import type { AccessTokens } from './access-token';
import { identities, users } from '@server/db/schema';
import { invalidIdToken, type VerifiedIdentity } from './id-token';
import { consumeNonce } from './nonces';
import { startFamily, type DbOrTx } from './refresh-tokens';

export interface SignInOptions {
  staffEmails: string[];
  refreshLifetimeDays: number;
}

const isStaffEmail = (staffEmails: string[], email: string) =>
  staffEmails.some((staff) => staff.toLowerCase() === email.toLowerCase());

async function findOrCreateUser(tx: DbOrTx, identity: VerifiedIdentity, staff: boolean): Promise<string> {
  const key = and(
    eq(identities.vendor, identity.vendor),
    eq(identities.tenant, identity.tenant),
    eq(identities.subject, identity.subject),
  );
  const [known] = await tx.select({ userId: identities.userId }).from(identities).where(key);
  if (known) {
    // Staff is only ever granted here, never taken away: the flag may also be set by other means.
    if (staff) {
      await tx
        .update(users)
        .set({ isStaff: true })
        .where(and(eq(users.id, known.userId), eq(users.isStaff, false)));
    }
    return known.userId;
  }
  const [user] = await tx
    .insert(users)
    .values({
      email: identity.email,
      firstName: identity.firstName,
      lastName: identity.lastName,
      isStaff: staff,
    })
    .returning({ id: users.id });
  const [linked] = await tx
    .insert(identities)
    .values({
      vendor: identity.vendor,
      tenant: identity.tenant,
      subject: identity.subject,
      userId: user!.id,
    })
    .onConflictDoNothing()
    .returning({ userId: identities.userId });
  if (linked) return linked.userId;
  // A concurrent first sign-in of the same person linked the identity first; theirs is the user.
  await tx.delete(users).where(eq(users.id, user!.id));
  const [winner] = await tx.select({ userId: identities.userId }).from(identities).where(key);
  return winner!.userId;
}

export function signIn(
  db: Db,
  identity: VerifiedIdentity,
  options: SignInOptions,
): Promise<{ userId: string; signInId: string; refreshToken: string }> {
  return db.transaction(async (tx) => {
    if (!(await consumeNonce(tx, identity.nonce))) {
      throw invalidIdToken(
        'The sign-in was not started here, has expired or was used already. Sign in again.',
      );
    }
    const staff = identity.emailVerified && isStaffEmail(options.staffEmails, identity.email);
    const userId = await findOrCreateUser(tx, identity, staff);
    return { userId, ...(await startFamily(tx, userId, options.refreshLifetimeDays)) };
  });
}

/**
 * A sign-in of a known user started without an ID token, as the benchmarks and tests sign in as the users they seed:
 * a refresh-token family of a day and an access token for it.
 */
export async function signInAs(
  db: Db,
  accessTokens: AccessTokens,
  userId: string,
): Promise<{ accessToken: string; refreshToken: string; signInId: string }> {
  const { signInId, refreshToken } = await startFamily(db, userId, 1);
  return { accessToken: await accessTokens.sign(userId, signInId), refreshToken, signInId };
}
