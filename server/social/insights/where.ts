// The FROM and WHERE of the dashboards' statements: the scope's condition with the refinements over any range (the
// posts and the rollups read alike: both are aliased p), the previous period, and whether the profiles are joined.
import { sql, type SQL } from 'drizzle-orm';
import { readsProfile } from '@server/query/analysis';
import { scopeWhere } from '../scope';
import type { InsightScope } from './request';

/** Whether the condition reads the author's profile (author:, country:, or an author or followers refinement). */
const needsProfiles = (context: InsightScope) =>
  readsProfile(context.scope.query) ||
  context.refines.some((refine) => refine.field === 'author' || refine.field === 'followers');

/**
 * The FROM of a scan: posts alone when nothing reads the profile (joining 1M posts to every profile costs a scan of
 * the profiles too), else QUERY_FROM.
 */
export const scanFrom = (context: InsightScope, profiles = needsProfiles(context)) =>
  profiles ? sql`posts p JOIN profiles a ON a.id = p.author_id` : sql`posts p`;

/** The scope's condition over [from, to) with the refinements. */
export function insightWhere(context: InsightScope, from = context.scope.from, to = context.scope.to): SQL {
  const where = scopeWhere({ ...context.scope, from, to });
  return context.refine ? sql`${where} AND ${context.refine}` : where;
}

/** The period of equal length just before the range. */
export function previousPeriod({ scope }: InsightScope): { from: Date; to: Date } {
  return { from: new Date(2 * scope.from.getTime() - scope.to.getTime()), to: scope.from };
}
