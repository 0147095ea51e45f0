// The date range a paging cursor belongs to. Every page of a list looks at the first page's range (a range that ends
// "now" would otherwise move between pages), so a later page must name the same range as the first did: a cursor
// sent with another range, or with none where the first page named one, is refused, the same way by discover and the
// dashboards' lists.
import { ApiError } from '@server/errors';

export const CURSOR_RANGE_CONFLICT =
  "This cursor belongs to another date range: send the first page's from and to with it, or start again from the " +
  'first page without a cursor.';

/** The range a request names: its filters' from and to as UTC instants, null where it leaves one out. */
export type NamedRange = [from: string | null, to: string | null];

const instant = (value: string | undefined) => (value ? new Date(value).toISOString() : null);

export function namedRange(filters: { from?: string | undefined; to?: string | undefined }): NamedRange {
  return [instant(filters.from), instant(filters.to)];
}

/** A range as a cursor carries it back (untrusted until checked): a NamedRange, or null for anything else. */
export function asNamedRange(value: unknown): NamedRange | null {
  const part = (v: unknown) => v === null || (typeof v === 'string' && !Number.isNaN(Date.parse(v)));
  return Array.isArray(value) && value.length === 2 && value.every(part) ? (value as NamedRange) : null;
}

/** Refuses a cursor whose first page named another range than this request does. */
export function checkCursorRange(cursor: NamedRange, request: NamedRange) {
  if (cursor[0] !== request[0] || cursor[1] !== request[1]) {
    throw new ApiError(400, 'invalid_cursor', CURSOR_RANGE_CONFLICT);
  }
}
