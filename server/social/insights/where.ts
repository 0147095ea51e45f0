// The previous period of a dashboard's range: the range of equal length just before it, which the overview and the
// conversation compare the range with.
import type { InsightScope } from './request';

/** The period of equal length just before the range. */
export function previousPeriod({ scope }: InsightScope): { from: Date; to: Date } {
  return { from: new Date(2 * scope.from.getTime() - scope.to.getTime()), to: scope.from };
}
