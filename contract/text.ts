// Text as PostgreSQL can store it: no NUL character (PostgreSQL's text ends a C string there and refuses it) and no
// lone UTF-16 surrogate (not Unicode: the driver would store U+FFFD silently). The server refuses such text in every
// string of every request, before its schema is read (server/validation.ts); storableText() gives the SPA's forms the
// same check with the field's own message.
import * as z from 'zod/mini';

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one (code units, no u flag). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_MESSAGE = 'Must not contain NUL characters or broken Unicode';

/** True when every UTF-16 code unit is allowed: not U+0000, and surrogates only in high-low pairs. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

export const storableText = () =>
  z.string().check(z.refine(isStorableText, { error: UNSTORABLE_TEXT_MESSAGE }));
