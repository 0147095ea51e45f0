// The stored session tokens (spec §3/§5): one local-storage entry holding a JSON object with two string fields.
import * as z from 'zod/mini';
import { AUTH_TOKENS_KEY } from './storage-keys';

const storedTokensSchema = z.object({ access_token: z.string(), refresh_token: z.string() });
export type Tokens = z.infer<typeof storedTokensSchema>;

class CorruptTokensError extends Error {
  override name = 'CorruptTokensError';
}

export type TokenRead = { ok: true; tokens: Tokens | null } | { ok: false; error: CorruptTokensError };

/** Reads the entry; a value that is not the two-string object is an error (the caller removes and reports it). */
export function readTokens(storage: Storage = localStorage): TokenRead {
  const raw = storage.getItem(AUTH_TOKENS_KEY);
  if (raw === null) return { ok: true, tokens: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { ok: false, error: new CorruptTokensError(`Stored ${AUTH_TOKENS_KEY} is not JSON`) };
  }
  const result = z.safeParse(storedTokensSchema, parsed);
  if (!result.success) {
    return {
      ok: false,
      error: new CorruptTokensError(`Stored ${AUTH_TOKENS_KEY} must have two string fields`),
    };
  }
  return { ok: true, tokens: result.data };
}

export function writeTokens(tokens: Tokens, storage: Storage = localStorage): void {
  storage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: tokens.access_token, refresh_token: tokens.refresh_token }),
  );
}

export function removeTokens(storage: Storage = localStorage): void {
  storage.removeItem(AUTH_TOKENS_KEY);
}
