// The plan's limits where they apply: counted limits (saved queries, members) are checked by their writes, monthly
// volumes (dashboard requests, exports) are counted here, and the history limit clips a dashboard's date range.
import { and, count, eq, sql } from 'drizzle-orm';
import { memberships, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { usageCounters } from '@server/db/billing-schema';
import { ApiError } from '@server/errors';
import type { Executor } from '@server/workspaces/access';
import { LIMIT_ERROR_CODES, type LimitKey, type PlanLimits, type UsageItem } from '@contract/billing';
import type { Catalogue } from './plans';

const DAY_MS = 24 * 60 * 60 * 1000;

const LIMIT_WORDS: Record<LimitKey, (n: number) => string> = {
  saved_queries: (n) => `${n} saved ${n === 1 ? 'query' : 'queries'}`,
  members: (n) => `${n} ${n === 1 ? 'member' : 'members'}`,
  history_days: (n) => `${n} days of history`,
  dashboard_requests_per_month: (n) => `${n.toLocaleString('en-US')} dashboard requests a month`,
  exports_per_month: (n) => `${n.toLocaleString('en-US')} exports a month`,
  tracked_queries: (n) => `${n} tracked ${n === 1 ? 'query' : 'queries'}`,
  posts_collected_per_month: (n) => `${n.toLocaleString('en-US')} posts collected a month`,
};

/** The refusal of a limit reached: its code names the limit (saved_query_limit, member_limit, …). */
export function limitReached(key: LimitKey, limit: number, planName: string): ApiError {
  const monthly = key.endsWith('_per_month');
  return new ApiError(
    409,
    LIMIT_ERROR_CODES[key],
    `This workspace has reached its ${planName} plan's limit of ${LIMIT_WORDS[key](limit)}` +
      `${monthly ? ' for this month' : ''}. An owner can upgrade the plan in Settings › Plan.`,
  );
}

export function limitsOf(catalogue: Catalogue, planId: string): { limits: PlanLimits; planName: string } {
  const plan = catalogue.find(planId);
  return { limits: plan.limits, planName: plan.name };
}

async function countMembers(db: Executor, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memberships)
    .where(eq(memberships.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/**
 * Before a new member joins: the workspace row locked until the caller's transaction ends (joins take turns), then
 * refused with member_limit when the plan's seats are taken.
 */
export async function assertSeatFree(tx: Executor, catalogue: Catalogue, workspaceId: string): Promise<void> {
  const [workspace] = await tx
    .select({ plan: workspaces.plan })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .for('update');
  if (!workspace) return;
  const { limits, planName } = limitsOf(catalogue, workspace.plan);
  if (limits.members !== null && (await countMembers(tx, workspaceId)) >= limits.members) {
    throw limitReached('members', limits.members, planName);
  }
}

async function countSaved(db: Executor, workspaceId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(savedQueries)
    .where(eq(savedQueries.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/** Saved queries of the workspace whose tracking is on. */
async function countTracked(db: Executor, workspaceId: string): Promise<number> {
  const rows = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from saved_query_tracking t join saved_queries q on q.id = t.saved_query_id
        where q.workspace_id = ${workspaceId} and t.enabled`,
  );
  return rows.rows[0]?.n ?? 0;
}

/** Posts collected for the workspace's tracked queries this calendar month (UTC days), counted per query. */
export async function collectedThisMonth(db: Executor, workspaceId: string): Promise<number> {
  const rows = await db.execute<{ n: number }>(
    sql`select coalesce(sum(d.posts), 0)::int as n from tracking_coverage_days d
        join saved_queries q on q.id = d.saved_query_id
        where q.workspace_id = ${workspaceId} and d.day >= date_trunc('month', now() at time zone 'UTC')::date`,
  );
  return rows.rows[0]?.n ?? 0;
}

/** The plan's tracking limits against the workspace's use, as a saved query's tracking shows them. */
export async function trackingUsage(
  db: Executor,
  catalogue: Catalogue,
  workspace: { id: string; plan: string },
) {
  const { limits, planName } = limitsOf(catalogue, workspace.plan);
  const [tracked, collected] = await Promise.all([
    countTracked(db, workspace.id),
    collectedThisMonth(db, workspace.id),
  ]);
  return {
    plan: planName,
    tracked_queries: { used: tracked, limit: limits.tracked_queries },
    posts_collected_per_month: { used: collected, limit: limits.posts_collected_per_month },
  };
}

/**
 * Before a saved query's tracking is turned on (the workspace row locked by the caller's transaction): refused with
 * tracked_query_limit when the plan's tracked queries are all on. Turning on one that is on already passes.
 */
export async function assertTrackingFree(
  tx: Executor,
  catalogue: Catalogue,
  workspace: { id: string; plan: string },
  alreadyOn: boolean,
): Promise<void> {
  const { limits, planName } = limitsOf(catalogue, workspace.plan);
  if (alreadyOn || limits.tracked_queries === null) return;
  if ((await countTracked(tx, workspace.id)) >= limits.tracked_queries)
    throw limitReached('tracked_queries', limits.tracked_queries, planName);
}

export type MonthlyMetric = 'dashboard_requests_per_month' | 'exports_per_month';

/** The first day of the current month in the zone, as YYYY-MM-DD (PostgreSQL knows every IANA zone). */
const monthIn = (timeZone: string) =>
  sql<string>`to_char(date_trunc('month', now() at time zone ${timeZone}), 'YYYY-MM-DD')`;

async function currentMonth(db: Executor, timeZone: string): Promise<string> {
  const rows = await db.execute<{ month: string }>(sql`select ${monthIn(timeZone)} as month`);
  return rows.rows[0]!.month;
}

/**
 * Counts one use of a monthly volume, or refuses it when the month's limit is reached: one statement, so concurrent
 * requests never pass the limit together (the row's update takes turns).
 */
export async function consumeMonthly(
  db: Executor,
  workspace: { id: string; plan: string; timeZone: string },
  catalogue: Catalogue,
  metric: MonthlyMetric,
): Promise<void> {
  const { limits, planName } = limitsOf(catalogue, workspace.plan);
  const limit = limits[metric];
  const month = sql`(${monthIn(workspace.timeZone)})::date`;
  if (limit === null) {
    await db
      .insert(usageCounters)
      .values({ workspaceId: workspace.id, metric, month, count: 1 })
      .onConflictDoUpdate({
        target: [usageCounters.workspaceId, usageCounters.metric, usageCounters.month],
        set: { count: sql`${usageCounters.count} + 1` },
      });
    return;
  }
  if (limit === 0) throw limitReached(metric, limit, planName);
  const counted = await db
    .insert(usageCounters)
    .values({ workspaceId: workspace.id, metric, month, count: 1 })
    .onConflictDoUpdate({
      target: [usageCounters.workspaceId, usageCounters.metric, usageCounters.month],
      set: { count: sql`${usageCounters.count} + 1` },
      setWhere: sql`${usageCounters.count} < ${limit}`,
    })
    .returning({ count: usageCounters.count });
  if (counted.length === 0) throw limitReached(metric, limit, planName);
}

/**
 * The oldest instant the plan lets a dashboard look at, or null without a limit: `history_days` whole days back, from
 * the start of today (UTC). A day's requests therefore clip to the same instant, so a clipped range is the same request
 * all day and the dashboards' answer cache (keyed by the resolved range) serves it again; the plan keeps its days plus
 * today's hours so far.
 */
export function historyStart(limits: PlanLimits, now = new Date()): Date | null {
  if (limits.history_days === null) return null;
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return new Date(today - limits.history_days * DAY_MS);
}

/** Usage against every limit, for the plan page; history is the plan's length (used = limit). */
export async function usageOf(
  db: Executor,
  workspace: { id: string; plan: string; timeZone: string },
  catalogue: Catalogue,
): Promise<{ month: string; items: UsageItem[] }> {
  const { limits } = limitsOf(catalogue, workspace.plan);
  const month = await currentMonth(db, workspace.timeZone);
  const counters = await db
    .select({ metric: usageCounters.metric, count: usageCounters.count })
    .from(usageCounters)
    .where(and(eq(usageCounters.workspaceId, workspace.id), eq(usageCounters.month, month)));
  const monthly = (metric: MonthlyMetric) => counters.find((c) => c.metric === metric)?.count ?? 0;
  const [saved, members, tracked, collected] = await Promise.all([
    countSaved(db, workspace.id),
    countMembers(db, workspace.id),
    countTracked(db, workspace.id),
    collectedThisMonth(db, workspace.id),
  ]);
  return {
    month,
    items: [
      { key: 'saved_queries', used: saved, limit: limits.saved_queries },
      { key: 'members', used: members, limit: limits.members },
      {
        key: 'dashboard_requests_per_month',
        used: monthly('dashboard_requests_per_month'),
        limit: limits.dashboard_requests_per_month,
      },
      { key: 'exports_per_month', used: monthly('exports_per_month'), limit: limits.exports_per_month },
      { key: 'tracked_queries', used: tracked, limit: limits.tracked_queries },
      { key: 'posts_collected_per_month', used: collected, limit: limits.posts_collected_per_month },
      { key: 'history_days', used: limits.history_days ?? 0, limit: limits.history_days },
    ],
  };
}

/** Why a workspace's current usage does not fit a smaller plan's limits; empty when it fits. */
export function downgradeBlockers(usage: UsageItem[], target: PlanLimits, targetName: string): string[] {
  const reasons: string[] = [];
  for (const item of usage) {
    if (item.key === 'history_days' || item.key.endsWith('_per_month')) continue;
    const limit = target[item.key];
    if (limit !== null && item.used > limit) {
      reasons.push(
        item.key === 'saved_queries'
          ? `${item.used} saved queries, ${targetName} allows ${limit}: delete ${item.used - limit} first.`
          : item.key === 'tracked_queries'
            ? `${item.used} tracked queries, ${targetName} allows ${limit}: stop tracking ${item.used - limit} first.`
            : `${item.used} members, ${targetName} allows ${limit}: remove ${item.used - limit} first.`,
      );
    }
  }
  return reasons;
}
