// Guessing join codes, and what stops it beyond the per-minute limit of each address and account (./redeem.ts).
//
// A code is 8 characters of a 31-letter alphabet: 31^8 ≈ 8.5 × 10^11 codes. A wrong code names no workspace, so
// "misses per workspace" needs a meaning; the two ways of attacking give it one:
//
// - Guessing one workspace's code with part of it known: half a code seen on a shared screen, read aloud, cropped from
//   a screenshot, or a mistyped copy. The rest is 31^4 = 923,521 guesses: at 10 a minute per account, 1,540
//   account-hours (two days for 32 accounts, five hours for 300), which the per-minute limit does not stop. Such
//   guesses share a group of four (ABCD-···· or ····-EFGH) with the code. So a miss counts against every code it
//   shares a group with, and JOIN_CODE_NEAR_MISSES_TO_LOCK near misses within a day, made since the code was made,
//   lock it: even the right code is refused (410 join_code_locked) until an owner or manager rotates it; the new code
//   starts unlocked, its count at zero. Whoever made the misses, from however many accounts and addresses. A person's
//   typo (one wrong character keeps one group intact) counts too, and ten in a day are far more than people make. A
//   random guess shares a group with a given code once in 461,761 guesses, so locking someone's code by spraying
//   guesses is not practical either.
//
// - Spraying random codes to land in any workspace: each guess finds one of W workspaces with probability
//   W / 8.5 × 10^11, whatever the target. No code gets near misses, so the lock does not see it, and the per-minute
//   limit lets each account try 14,400 times a day. So each account may also miss JOIN_CODE_MISSES_PER_DAY times a day
//   (a person who mistypes a code thirty times asks for an invite link instead): 1,000 accounts, each a Google or
//   Microsoft identity, get 30,000 guesses a day, one hit in about 8 years with 10,000 workspaces. It slows the first
//   attack as much (923,521 guesses are 30,784 account-days). A budget for the whole service would bound spraying
//   whatever the number of accounts, but anyone could spend it and stop everyone's joining by code: the limit per
//   account and day is the trade chosen.
//
// Both counts are rows in PostgreSQL (join_code_misses, join_codes.locked_at), so a restart resets neither. The
// account's limit is checked before the code, so that while it holds a hit and a miss get the same answer. Misses are
// deleted after a day (server/housekeeping.ts).
import { and, count, eq, gte, lt, min, or, sql } from 'drizzle-orm';
import { joinCodeMisses, joinCodes } from '@server/db/schema';
import type { Executor } from '@server/workspaces/access';

/** Near misses (sharing a group of four) within a day that lock a code until it is rotated. */
export const JOIN_CODE_NEAR_MISSES_TO_LOCK = 10;
/** Wrong codes an account may try in a day. */
export const JOIN_CODE_MISSES_PER_DAY = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const groups = (code: string) => ({ head: code.slice(0, 4), tail: code.slice(4) });

/** Seconds until the account may try again, or 0 when it has misses left today. */
export async function secondsUntilAccountMayTry(db: Executor, userId: string): Promise<number> {
  const since = new Date(Date.now() - DAY_MS);
  const [row] = await db
    .select({ misses: count(), oldest: min(joinCodeMisses.at) })
    .from(joinCodeMisses)
    .where(and(eq(joinCodeMisses.userId, userId), gte(joinCodeMisses.at, since)));
  if (!row || row.misses < JOIN_CODE_MISSES_PER_DAY || !row.oldest) return 0;
  // Exact when the limit was just reached; an account far over it (rows inserted by hand) waits a little longer.
  return Math.max(1, Math.ceil((row.oldest.getTime() + DAY_MS - Date.now()) / 1000));
}

/**
 * Records a wrong code, then locks every code near it that has now had JOIN_CODE_NEAR_MISSES_TO_LOCK near misses in
 * the last day since it was made. Returns how many codes it locked.
 */
export async function recordMiss(db: Executor, userId: string, code: string): Promise<number> {
  const { head, tail } = groups(code);
  await db.insert(joinCodeMisses).values({ userId, head, tail });
  const nearMisses = sql`(
    SELECT count(*) FROM ${joinCodeMisses} m
    WHERE (m.head = left(${joinCodes.code}, 4) OR m.tail = right(${joinCodes.code}, 4))
      AND m.at >= greatest(${joinCodes.createdAt}, now() - interval '1 day'))`;
  const locked = await db
    .update(joinCodes)
    .set({ lockedAt: sql`now()` })
    .where(
      and(
        sql`${joinCodes.lockedAt} IS NULL`,
        or(sql`left(${joinCodes.code}, 4) = ${head}`, sql`right(${joinCodes.code}, 4) = ${tail}`),
        sql`${nearMisses} >= ${JOIN_CODE_NEAR_MISSES_TO_LOCK}`,
      ),
    )
    .returning({ workspaceId: joinCodes.workspaceId });
  return locked.length;
}

/** Misses older than a day count for nothing: deleted by the hourly housekeeping. */
export async function purgeOldMisses(db: Executor): Promise<number> {
  const deleted = await db
    .delete(joinCodeMisses)
    .where(lt(joinCodeMisses.at, new Date(Date.now() - DAY_MS)))
    .returning({ id: joinCodeMisses.id });
  return deleted.length;
}
