// Turns a verified ID token into a signed-in user: spends the nonce, finds or creates the user by identity (never by
// e-mail, which people change and vendors reassign) and starts a refresh-token family, all in one transaction.
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/database';
import { identities, users } from '../db/schema';
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
): Promise<{ userId: string; refreshToken: string }> {
  return db.transaction(async (tx) => {
    if (!(await consumeNonce(tx, identity.nonce))) {
      throw invalidIdToken(
        'The sign-in was not started here, has expired or was used already. Sign in again.',
      );
    }
    const staff = identity.emailVerified && isStaffEmail(options.staffEmails, identity.email);
    const userId = await findOrCreateUser(tx, identity, staff);
    const refreshToken = await startFamily(tx, userId, options.refreshLifetimeDays);
    return { userId, refreshToken };
  });
}
