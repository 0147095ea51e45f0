// Scheduled digests (server/digests): per saved query, daily or weekly in the workspace's time zone, an e-mail to chosen
// members and addresses with the period's key figures against the one before, its spikes, top posts and people, and a
// link to the dashboard of that period. Owners and managers make and delete them; every member sees them.
import * as z from 'zod/mini';
import { workspaceIdSchema } from './workspaces';

export const DIGEST_FREQUENCIES = ['daily', 'weekly'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];
/** The most digests a workspace keeps. */
export const DIGESTS_LIMIT = 50;
/**
 * The most digest e-mails a workspace sends a day (confirmations included): its digests' recipients together may not
 * exceed it, and a round sends no more within any 24 hours.
 */
export const DIGEST_DAILY_CAP = 200;
const MAX_RECIPIENTS = 50;

export const createDigestBodySchema = z.object({
  saved_query_id: z.uuid(),
  frequency: z.enum(DIGEST_FREQUENCIES),
  /** Members of the workspace. */
  recipient_ids: z._default(z.array(z.uuid()).check(z.maxLength(MAX_RECIPIENTS)), []),
  /** Other e-mail addresses. */
  addresses: z._default(z.array(z.email().check(z.maxLength(254))).check(z.maxLength(MAX_RECIPIENTS)), []),
});
export type CreateDigestBody = z.input<typeof createDigestBodySchema>;

export const digestParamsSchema = z.object({ id: workspaceIdSchema, digestId: z.uuid() });

export const digestSchema = z.object({
  id: z.string(),
  saved_query_id: z.string(),
  saved_query_name: z.string(),
  frequency: z.enum(DIGEST_FREQUENCIES),
  recipient_ids: z.array(z.string()),
  addresses: z.array(z.string()),
  /** Of the addresses, those that have not confirmed yet (nothing but the confirmation e-mail is sent to them). */
  unconfirmed_addresses: z.array(z.string()),
  created_at: z.string(),
  /** The last period sent (ISO 8601 start), null before the first. */
  last_sent_period: z.nullable(z.string()),
});
export type Digest = z.infer<typeof digestSchema>;

export const digestListSchema = z.object({
  digests: z.array(digestSchema),
  can_edit: z.boolean(),
  limit: z.int(),
  /** E-mails a day the workspace's digests may send (DIGEST_DAILY_CAP). */
  daily_cap: z.int(),
  /** Why this workspace cannot schedule or receive digests (a trial), in words; null when it can. */
  unavailable: z.nullable(z.string()),
});

/** The confirmation link's token (from its fragment). */
export const confirmDigestBodySchema = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
});

export const confirmDigestResponseSchema = z.object({
  address: z.string(),
  workspace_name: z.string(),
  /** True when this link had already confirmed the address (confirming again changes nothing). */
  already_confirmed: z.boolean(),
});
