// Discover's keyset cursor: the last post's sort key and id, the date range of the first page (so every page searches
// the same window, even when the default range would have moved on), the range the first page named (a later page
// must name the same, ../cursor-range.ts) and a fingerprint of the search it belongs to.
// Opaque to clients (base64url JSON) and validated on the way back: anything else is 400 invalid_cursor.
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { DISCOVER_SORTS, type DiscoverSort } from '@contract/discover';
import type { QueryFilters } from '@contract/social-scope';
import { ApiError } from '@server/errors';
import { checkCursorRange, type NamedRange } from '../cursor-range';

/** A posted_at to the microsecond, as PostgreSQL stores it (a JavaScript Date would drop the last three digits). */
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const instant = z.iso.datetime({ offset: true });

const cursorSchema = z.strictObject({
  v: z.literal(1),
  s: z.enum(DISCOVER_SORTS),
  /** recency: posted_at (microseconds, UTC); engagement: the engagement count. */
  k: z.union([z.string().check(z.regex(MICROS)), z.int().check(z.gte(0))]),
  id: z.int().check(z.gte(1)),
  from: instant,
  to: instant,
  /** The range the first page named (null where it left one out). */
  r: z.tuple([z.nullable(instant), z.nullable(instant)]),
  h: z.string().check(z.length(22)),
});
export type Cursor = z.infer<typeof cursorSchema>;

const invalidCursor = (message = 'This cursor is not valid; start again from the first page.') =>
  new ApiError(400, 'invalid_cursor', message);

/** What makes two requests the same search: the canonical query, the filters but the range, and the sort. */
export function searchFingerprint(
  normalizedQuery: string,
  filters: QueryFilters,
  sort: DiscoverSort,
): string {
  const canonical = JSON.stringify([
    normalizedQuery,
    [...(filters.platforms ?? [])].sort(),
    [...(filters.languages ?? [])].sort(),
    sort,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** The cursor, checked against the request it came back with. */
export function decodeCursor(
  text: string,
  sort: DiscoverSort,
  fingerprint: string,
  range: NamedRange,
): Cursor {
  let json: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const parsed = z.safeParse(cursorSchema, json);
  if (!parsed.success) throw invalidCursor();
  const cursor = parsed.data;
  const keyValid =
    cursor.s === 'recency'
      ? typeof cursor.k === 'string' && !Number.isNaN(Date.parse(cursor.k))
      : typeof cursor.k === 'number' && Number.isSafeInteger(cursor.k);
  if (!keyValid || !Number.isSafeInteger(cursor.id)) throw invalidCursor();
  if (cursor.s !== sort || cursor.h !== fingerprint) {
    throw invalidCursor('This cursor belongs to another search; start again from the first page.');
  }
  checkCursorRange(cursor.r, range);
  return cursor;
}
