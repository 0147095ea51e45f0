// Scheduled digests (server/digests): per saved query, daily or weekly in the workspace's time zone, an e-mail to chosen
// members and addresses with the period's key figures against the one before, its spikes, top posts and people, and a
// link to the dashboard of that period. Owners and managers make and delete them; every member sees them.
import * as z from 'zod/mini';
import { workspaceIdSchema } from './workspaces';

export const DIGEST_FREQUENCIES = ['daily', 'weekly'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];
/** The most digests a workspace keeps. */
export const DIGESTS_LIMIT = 50;
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
  created_at: z.string(),
  /** The last period sent (ISO 8601 start), null before the first. */
  last_sent_period: z.nullable(z.string()),
});
export type Digest = z.infer<typeof digestSchema>;

export const digestListSchema = z.object({
  digests: z.array(digestSchema),
  can_edit: z.boolean(),
  limit: z.int(),
});
