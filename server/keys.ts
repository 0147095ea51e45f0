// The server's secret and the keys derived from it, one per purpose, so no two uses share a key.
import { createHmac, randomBytes } from 'node:crypto';

export interface ServerKeys {
  /** Refresh-token successors (server/auth/refresh-tokens.ts). */
  refreshSuccessors: Uint8Array;
  /** Paging cursors' seals (server/social/cursor-seal.ts). */
  cursors: Uint8Array;
  /** The built-in payment provider's webhook signatures (server/payments). */
  paymentWebhooks: Uint8Array;
  /** The alert e-mails' unsubscribe tokens (server/alerts/unsubscribe.ts). */
  alertUnsubscribe: Uint8Array;
  /** The digest e-mails' unsubscribe tokens (server/digests/unsubscribe.ts). */
  digestUnsubscribe: Uint8Array;
}

const derive = (secret: Uint8Array, purpose: string) =>
  createHmac('sha256', secret).update(`murmur ${purpose}`).digest();

/** From the given secret (npm start derives one from the signing key, stable across restarts), else a random one. */
export function serverKeys(secret: Uint8Array = randomBytes(32)): ServerKeys {
  return {
    refreshSuccessors: derive(secret, 'refresh-token successors'),
    cursors: derive(secret, 'paging cursors'),
    paymentWebhooks: derive(secret, 'built-in payment webhooks'),
    alertUnsubscribe: derive(secret, 'alert unsubscribe links'),
    digestUnsubscribe: derive(secret, 'digest unsubscribe links'),
  };
}
