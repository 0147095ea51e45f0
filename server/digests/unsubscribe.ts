// The digest e-mails' unsubscribe link: a token that takes one recipient (a member, or an address) off one digest and
// does nothing else, signed with the server's key for it (server/keys.ts). As the alerts' link, it travels in the
// fragment (/unsubscribe#digest=…), which browsers never send, and the page posts it to POST /api/digests/unsubscribe.
import { createHmac, timingSafeEqual } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A member (by id) or an address. */
export type DigestRecipient = { userId: string } | { address: string };

const encode = (recipient: DigestRecipient) =>
  Buffer.from('userId' in recipient ? `u:${recipient.userId}` : `a:${recipient.address}`, 'utf8').toString(
    'base64url',
  );

const mac = (key: Uint8Array, digestId: string, recipient: string) =>
  createHmac('sha256', key).update(`digest unsubscribe ${digestId} ${recipient}`).digest('base64url');

export function digestUnsubscribeToken(
  key: Uint8Array,
  digestId: string,
  recipient: DigestRecipient,
): string {
  const who = encode(recipient);
  return `${digestId}.${who}.${mac(key, digestId, who)}`;
}

/** The digest and recipient a token names, or null for one this server did not sign. */
export function readDigestUnsubscribeToken(
  key: Uint8Array,
  token: string,
): { digestId: string; recipient: DigestRecipient } | null {
  const [digestId, who, signature, ...rest] = token.split('.');
  if (rest.length || !digestId || !who || !signature || !UUID.test(digestId)) return null;
  const expected = Buffer.from(mac(key, digestId, who));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const text = Buffer.from(who, 'base64url').toString('utf8');
  if (text.startsWith('u:') && UUID.test(text.slice(2)))
    return { digestId, recipient: { userId: text.slice(2) } };
  if (text.startsWith('a:') && text.length > 2) return { digestId, recipient: { address: text.slice(2) } };
  return null;
}
