// Development data for the bundled OpenID provider: its demo accounts as users (linked to the subjects the provider
// issues, for both vendors it stands in for) and the "Murmur Demo" workspace they share. Only with the provider on;
// idempotent, so every start may run it.
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Db } from './db/database';
import { identities, memberships, users, workspaces } from './db/schema';
import type { ServerConfig } from './config';
import type { DbOrTx } from './auth/refresh-tokens';
import { ensureInternalWorkspace } from './workspaces/access';
import { generateCorpus } from './social/corpus/generate/load';
import {
  DEMO_ACCOUNTS,
  DEMO_WORKSPACE,
  DEV_TENANT_ID,
  subjectFor,
  type DemoAccount,
} from './dev-oidc/accounts';

export interface SeedResult {
  /** False when the provider is off and nothing was done. */
  seeded: boolean;
  /** True only on the run that created the demo workspace. */
  createdWorkspace: boolean;
}

const identityKeys = (subject: string) => [
  { vendor: 'google', tenant: '', subject },
  { vendor: 'microsoft', tenant: DEV_TENANT_ID, subject },
];

/** The account's user: the one an identity of theirs already points at, or a new one. Links both identities. */
async function ensureUser(tx: DbOrTx, account: DemoAccount): Promise<string> {
  const keys = identityKeys(subjectFor(account.email));
  const [known] = await tx
    .select({ userId: identities.userId })
    .from(identities)
    .where(
      or(
        ...keys.map((key) =>
          and(
            eq(identities.vendor, key.vendor),
            eq(identities.tenant, key.tenant),
            eq(identities.subject, key.subject),
          ),
        ),
      ),
    )
    .limit(1);
  let userId = known?.userId;
  if (!userId) {
    const [created] = await tx
      .insert(users)
      .values({
        email: account.email,
        firstName: account.firstName,
        lastName: account.lastName,
        isStaff: account.staff,
      })
      .returning({ id: users.id });
    userId = created!.id;
  } else if (account.staff) {
    await tx.update(users).set({ isStaff: true }).where(eq(users.id, userId));
  }
  await tx
    .insert(identities)
    .values(keys.map((key) => ({ ...key, userId: userId! })))
    .onConflictDoNothing();
  return userId;
}

export async function seedDevData(db: Db, config: ServerConfig): Promise<SeedResult> {
  if (!config.DEV_OIDC) return { seeded: false, createdWorkspace: false };
  return db.transaction(async (tx) => {
    // Two servers starting on one database seed one after the other.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('murmur:dev-seed'))`);
    await ensureInternalWorkspace(tx, config);
    const members = [];
    for (const account of DEMO_ACCOUNTS) {
      const userId = await ensureUser(tx, account);
      if (account.demoPrivilege) {
        members.push({ workspaceId: DEMO_WORKSPACE.id, userId, privilege: account.demoPrivilege });
      }
      if (account.internalPrivilege) {
        members.push({
          workspaceId: config.INTERNAL_WORKSPACE_ID,
          userId,
          privilege: account.internalPrivilege,
        });
      }
    }
    // The workspace row is the marker: members are added when it is created, never again, so changes made through
    // the app (someone removed, a role changed) survive restarts.
    const [created] = await tx
      .insert(workspaces)
      .values({ ...DEMO_WORKSPACE, plan: 'demo', planExpiredAt: null })
      .onConflictDoNothing({ target: workspaces.id })
      .returning({ id: workspaces.id });
    if (created) {
      await tx.insert(memberships).values(members).onConflictDoNothing();
    }
    return { seeded: true, createdWorkspace: Boolean(created) };
  });
}

/** The demo users' ids by e-mail, for tests and tools. */
export async function demoUserIds(db: Db): Promise<Map<string, string>> {
  const subjects = DEMO_ACCOUNTS.map((account) => subjectFor(account.email));
  const rows = await db
    .select({ subject: identities.subject, userId: identities.userId })
    .from(identities)
    .where(and(eq(identities.vendor, 'google'), inArray(identities.subject, subjects)));
  const bySubject = new Map(rows.map((row) => [row.subject, row.userId]));
  return new Map(
    DEMO_ACCOUNTS.flatMap((account) => {
      const userId = bySubject.get(subjectFor(account.email));
      return userId ? [[account.email, userId] as const] : [];
    }),
  );
}

/** The demo corpus's seed: every fresh database gets the same posts (dated up to the day it is seeded). */
const DEMO_CORPUS_SEED = 2025;

export interface DemoCorpusResult {
  /** False when CORPUS_DEMO_POSTS is 0 or posts already exist. */
  seeded: boolean;
  posts: number;
  profiles: number;
  elapsedMs: number;
}

/**
 * A synthetic corpus (CORPUS_DEMO_POSTS posts, 30,000 by default) so a fresh install has something to explore. Only
 * into an empty posts table: an import or a generated corpus is never touched. Whatever the sign-in provider.
 */
export async function seedDemoCorpus(pool: pg.Pool, config: ServerConfig): Promise<DemoCorpusResult> {
  if (config.CORPUS_DEMO_POSTS === 0) return { seeded: false, posts: 0, profiles: 0, elapsedMs: 0 };
  const result = await generateCorpus(pool, {
    seed: DEMO_CORPUS_SEED,
    posts: config.CORPUS_DEMO_POSTS,
    mode: 'if-empty',
  });
  return {
    seeded: result.loaded,
    posts: result.posts,
    profiles: result.profiles,
    elapsedMs: result.elapsedMs,
  };
}
