// The alert e-mails' unsubscribe link: a token that mutes one rule for one person and does nothing else, signed with
// the server's key for it (server/keys.ts). The link carries it in the fragment (/unsubscribe#token=…), which browsers
// never send, so it stays out of the server's and proxies' logs; the page posts it to POST /api/alerts/unsubscribe.
import { createHmac, timingSafeEqual } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const mac = (key: Uint8Array, ruleId: string, userId: string) =>
  createHmac('sha256', key).update(`unsubscribe ${ruleId} ${userId}`).digest('base64url');

export function unsubscribeToken(key: Uint8Array, ruleId: string, userId: string): string {
  return `${ruleId}.${userId}.${mac(key, ruleId, userId)}`;
}

/** The rule and person a token names, or null for one this server did not sign. */
export function readUnsubscribeToken(
  key: Uint8Array,
  token: string,
): { ruleId: string; userId: string } | null {
  const [ruleId, userId, signature, ...rest] = token.split('.');
  if (rest.length || !ruleId || !userId || !signature || !UUID.test(ruleId) || !UUID.test(userId))
    return null;
  const expected = Buffer.from(mac(key, ruleId, userId));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ruleId, userId } : null;
}
