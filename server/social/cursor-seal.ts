// Paging cursors travel through clients and come back: sealed with a server key (HMAC-SHA256) and bound to the
// workspace, so a cursor that was edited, forged or carried to another workspace is a 400 before any of its values
// reaches SQL. The lists still check the inside (its fingerprint binds it to the query, filters and sort).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@server/errors';

/** The seal's length: 128 bits of the HMAC in base64url. */
const SEAL_LENGTH = 22;

export interface CursorSeal {
  /** `inner` (base64url, no dots) with its seal appended after a dot. */
  seal(inner: string, workspaceId: string): string;
  /** The inner cursor of a sealed one handed out for this workspace; a 400 invalid_cursor for anything else. */
  open(sealed: string, workspaceId: string): string;
}

const invalidCursor = () =>
  new ApiError(400, 'invalid_cursor', 'This cursor is not valid here; start again from the first page.');

export function cursorSeal(key: Uint8Array): CursorSeal {
  const mac = (inner: string, workspaceId: string) =>
    createHmac('sha256', key).update(`${workspaceId}\n${inner}`).digest('base64url').slice(0, SEAL_LENGTH);
  return {
    seal: (inner, workspaceId) => `${inner}.${mac(inner, workspaceId)}`,
    open(sealed, workspaceId) {
      const dot = sealed.lastIndexOf('.');
      if (dot <= 0) throw invalidCursor();
      const inner = sealed.slice(0, dot);
      const given = Buffer.from(sealed.slice(dot + 1));
      const expected = Buffer.from(mac(inner, workspaceId));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
      return inner;
    },
  };
}
