// What a Mastodon stream's events name (mastodon-stream.ts): a status's id on its instance (a `delete` event's payload,
// a Status's `id`), checked; and the events read lately, by a key, so that the copy a second of the instance's streams
// brings (the public timeline holds every public status a hashtag's does) is not read again.
import * as z from 'zod/mini';

/** A status's id on its instance (Mastodon's are digits; other servers' flakes of letters and digits). */
export const statusId = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, { error: 'must be a status id (letters, digits, - or _)' }));

/** The instance's own id of a status (its `id`), when it is one. */
export const localId = (status: unknown): string | undefined => {
  const id = (status as { id?: unknown } | null)?.id;
  return z.safeParse(statusId, id).success ? (id as string) : undefined;
};

/** An event's key: its kind, the status's id, and for an edit when it was edited (each edit is read once). */
export const eventKey = (kind: string, id: string, status?: unknown) => {
  const edited = (status as { edited_at?: unknown } | null)?.edited_at;
  return `${kind} ${id} ${typeof edited === 'string' ? edited : ''}`;
};

/**
 * Whether an event was read in the last `forMs` (at most `max` remembered); remembers it otherwise. Keys are dropped
 * oldest first, as they were read.
 */
export function readLately(forMs = 10 * 60_000, max = 100_000): (key: string) => boolean {
  const seen = new Map<string, number>();
  return (key) => {
    if (seen.has(key)) return true;
    const now = Date.now();
    seen.set(key, now);
    for (const [old, at] of seen) {
      if (at >= now - forMs && seen.size <= max) break;
      seen.delete(old);
    }
    return false;
  };
}
