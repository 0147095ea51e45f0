// Reads the expiry of an access token without verifying it: the server verifies, the SPA only decides when to refresh.

/** Access-token expiry margin of the spec (§9): a token expiring within 30 s counts as expired. */
const ACCESS_TOKEN_EXPIRY_MARGIN_MS = 30_000;

function decodeBase64Url(segment: string): string {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** The `exp` claim in seconds, or null when the token is missing, not decodable, or has no numeric exp. */
export function readExpiry(token: string | null | undefined): number | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const payload: unknown = JSON.parse(decodeBase64Url(parts[1]));
    if (typeof payload !== 'object' || payload === null) return null;
    const exp = (payload as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : null;
  } catch {
    return null;
  }
}

/** Spec §4: expired if missing, not decodable, without exp, or expiring within the margin. */
export function isAccessTokenExpired(token: string | null | undefined, nowMs: number = Date.now()): boolean {
  const exp = readExpiry(token);
  if (exp === null) return true;
  return exp * 1000 - nowMs <= ACCESS_TOKEN_EXPIRY_MARGIN_MS;
}
