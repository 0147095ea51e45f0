// Credentials staff store for the sources that need them (Reddit, YouTube, X): the request and response shapes of
// /api/scraping/credentials, shared by the SPA and the server. The fields are write-only: sealed at rest with
// SECRETS_KEY (server/scraping/credentials.ts), never returned.
import * as z from 'zod/mini';
import { CREDENTIAL_KINDS, YOUTUBE_DEFAULT_DAILY_QUOTA } from './scraping';
import { storableText } from './text';

const secretField = (what: string, max: number) =>
  z
    .string({ error: `Enter the ${what}` })
    .check(
      z.trim(),
      z.minLength(1, { error: `Enter the ${what}` }),
      z.maxLength(max, { error: `At most ${max} characters` }),
      z.regex(/^[\x21-\x7e]+$/, { error: 'Letters, digits and symbols only, without spaces' }),
    );

/** The fields each kind of credential holds (encrypted at rest; never returned). */
export const credentialSecretSchemas = {
  reddit: z.strictObject({
    client_id: secretField('client id', 100),
    client_secret: secretField('client secret', 200),
    /** The Reddit account that registered the app: Reddit's API rules want it in the User-Agent. */
    username: z.optional(
      z
        .string()
        .check(
          z.trim(),
          z.regex(/^(?:\/?u\/)?[A-Za-z0-9_-]{3,20}$/, { error: 'A Reddit user name such as murmur_bot' }),
        ),
    ),
  }),
  youtube: z.strictObject({ api_key: secretField('API key', 200) }),
  x: z.strictObject({ bearer_token: secretField('bearer token', 2_000) }),
} as const;

const credentialName = storableText().check(
  z.trim(),
  z.minLength(1, { error: 'Give the credentials a name' }),
  z.maxLength(100, { error: 'At most 100 characters' }),
);
const quotaMessage = 'Whole units from 1 to 1,000,000,000';
const dailyQuota = z
  .int({ error: quotaMessage })
  .check(z.gte(1, { error: quotaMessage }), z.lte(1_000_000_000, { error: quotaMessage }));

export const createCredentialBodySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('reddit'), name: credentialName, secret: credentialSecretSchemas.reddit }),
  z.strictObject({
    kind: z.literal('youtube'),
    name: credentialName,
    secret: credentialSecretSchemas.youtube,
    /** The quota units the jobs may spend a day: the Google Cloud project's quota, 10,000 by default. */
    daily_quota: z._default(dailyQuota, YOUTUBE_DEFAULT_DAILY_QUOTA),
  }),
  z.strictObject({ kind: z.literal('x'), name: credentialName, secret: credentialSecretSchemas.x }),
]);
export type CreateCredentialBody = z.input<typeof createCredentialBodySchema>;

/** A new name, new fields (replacing all of them: the old ones are never shown), a new daily quota (YouTube). */
export const updateCredentialBodySchema = z.strictObject({
  name: z.optional(credentialName),
  secret: z.optional(
    z.union([credentialSecretSchemas.reddit, credentialSecretSchemas.youtube, credentialSecretSchemas.x]),
  ),
  daily_quota: z.optional(dailyQuota),
});

export const credentialParamsSchema = z.object({ credentialId: z.uuid() });

export const credentialTestSchema = z.object({
  ok: z.boolean(),
  /** What works, or what is wrong, in words. */
  message: z.string(),
  /** Unix seconds. */
  at: z.int(),
});
export type CredentialTestResult = z.infer<typeof credentialTestSchema>;

export const credentialSchema = z.object({
  id: z.string(),
  kind: z.enum(CREDENTIAL_KINDS),
  name: z.string(),
  /** False when this server's SECRETS_KEY cannot open them (another key, or none): `problem` says why. */
  usable: z.boolean(),
  problem: z.nullable(z.string()),
  /** YouTube: the units the jobs may spend a day, and spent on this quota day (midnight Pacific time). */
  daily_quota: z.nullable(z.int()),
  spent_today: z.nullable(z.int()),
  /** Jobs that use them (not cancelled). */
  jobs: z.int(),
  last_test: z.nullable(credentialTestSchema),
  created_at: z.int(),
  updated_at: z.int(),
});
export type SourceCredential = z.infer<typeof credentialSchema>;

export const credentialListSchema = z.object({
  credentials: z.array(credentialSchema),
  /** Whether the server has a SECRETS_KEY (without one, credentials cannot be stored). */
  can_store: z.boolean(),
});
