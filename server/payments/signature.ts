// The built-in provider signs each webhook as card providers do: `Murmur-Signature: t=<unix seconds>,v1=<hex>`, an
// HMAC-SHA256 over `<t>.<raw body>`. The receiver checks it in constant time and refuses old timestamps (replays).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'murmur-signature';
/** How old a signed webhook may be when it arrives. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signPayload(
  key: Uint8Array,
  payload: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const mac = createHmac('sha256', key).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** True when the header is a valid signature of the payload made within the tolerance (either way) of `now`. */
export function verifySignature(
  key: Uint8Array,
  payload: string,
  header: string | undefined,
  now = Math.floor(Date.now() / 1000),
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > toleranceSeconds) return false;
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', key).update(`${timestamp}.${payload}`).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
