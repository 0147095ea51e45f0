// A scope is what one request looks at: a parsed query, the filters, and a resolved date range. The analytics store
// reads it as a condition of its own (server/analytics/figures/scope.ts).
import type { QueryNode } from '@server/query/index';
import { MAX_RANGE_DAYS, type QueryFilters } from '@contract/social-scope';
import { ApiError } from '@server/errors';

export interface Scope {
  query: QueryNode | null;
  platforms: string[];
  languages: string[];
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
/** Without dates a scope covers the last 30 days, the default of the field's leading tools. */
const DEFAULT_RANGE_DAYS = 30;

/** Resolves filters (and optional overrides) into a scope; absurd ranges are a clear 400. */
export function resolveScope(query: QueryNode | null, filters: QueryFilters, now: Date = new Date()): Scope {
  const to = filters.to ? new Date(filters.to) : now;
  const from = filters.from ? new Date(filters.from) : new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  if (!(from < to))
    throw new ApiError(400, 'invalid_range', 'The start of the date range must be before its end.');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    throw new ApiError(400, 'invalid_range', `A date range can cover at most ${MAX_RANGE_DAYS} days.`);
  }
  return { query, platforms: filters.platforms ?? [], languages: filters.languages ?? [], from, to };
}
