// Invite tokens and join codes: how they are made and how they are stored.
import { createHash, randomBytes } from 'node:crypto';
import { JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH } from '@contract/invites';

/** 256 bits: unguessable, so a leaked database cannot be turned back into working links (only hashes are kept). */
export function newInviteToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashInviteToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Uniform over the alphabet: bytes past the largest multiple of its length are dropped rather than folded in. */
export function newJoinCode(): string {
  const limit = 256 - (256 % JOIN_CODE_ALPHABET.length);
  let code = '';
  while (code.length < JOIN_CODE_LENGTH) {
    for (const byte of randomBytes(JOIN_CODE_LENGTH * 2)) {
      if (byte < limit && code.length < JOIN_CODE_LENGTH)
        code += JOIN_CODE_ALPHABET[byte % JOIN_CODE_ALPHABET.length];
    }
  }
  return code;
}

/** Whether `error` is PostgreSQL's error `code` (SQLSTATE), also when Drizzle wraps the driver's error. */
export function isPgError(error: unknown, code: string): boolean {
  const candidate = error as { code?: unknown; cause?: { code?: unknown } };
  return candidate?.code === code || candidate?.cause?.code === code;
}

/** PostgreSQL's unique_violation. */
export const isUniqueViolation = (error: unknown): boolean => isPgError(error, '23505');
