// Keyset cursors of the paged lists: the last row's sort key and id, the date range of the first page (later pages
// look at the same range even when it ends "now"), the range the first page named (a later page must name the same,
// ../cursor-range.ts), and a fingerprint of the scope so a cursor cannot be replayed against another query, filter
// set, refinement or sort.
import { createHash } from 'node:crypto';
import { ApiError } from '@server/errors';
import { asNamedRange, checkCursorRange, type NamedRange } from '../cursor-range';
import type { Cursor } from '@server/analytics/figures/scope';
import type { InsightScope } from './request';

export type { Cursor };

interface Encoded extends Cursor {
  fp: string;
  r: NamedRange;
}

function fingerprint(context: InsightScope, sort: string): string {
  const { scope, normalized, refines } = context;
  const identity = JSON.stringify([normalized, scope.platforms, scope.languages, refines, sort]);
  return createHash('sha256').update(identity).digest('base64url').slice(0, 16);
}

export function encodeCursor(cursor: Cursor, context: InsightScope, sort: string): string {
  const encoded: Encoded = { ...cursor, fp: fingerprint(context, sort), r: context.namedRange };
  return Buffer.from(JSON.stringify(encoded)).toString('base64url');
}

const invalidCursor = () =>
  new ApiError(
    400,
    'invalid_cursor',
    'This cursor does not belong to this list: pass next_cursor back with the same query, filters, refinements ' +
      'and sort.',
  );

/** The cursor, its range applied to the context; a cursor from another list (or altered) is a 400. */
export function decodeCursor(text: string, context: InsightScope, sort: string): Cursor {
  let value: Partial<Encoded>;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Encoded>;
  } catch {
    throw invalidCursor();
  }
  const valid =
    typeof value === 'object' &&
    value !== null &&
    value.fp === fingerprint(context, sort) &&
    typeof value.key === 'string' &&
    Array.isArray(value.ties) &&
    value.ties.every((n) => Number.isSafeInteger(n)) &&
    typeof value.from === 'string' &&
    typeof value.to === 'string' &&
    !Number.isNaN(Date.parse(value.from)) &&
    !Number.isNaN(Date.parse(value.to));
  const named = asNamedRange(value.r);
  if (!valid || !named) throw invalidCursor();
  checkCursorRange(named, context.namedRange);
  context.scope = { ...context.scope, from: new Date(value.from!), to: new Date(value.to!) };
  return { key: value.key!, ties: value.ties!, from: value.from!, to: value.to! };
}
