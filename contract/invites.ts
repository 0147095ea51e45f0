// Request and response shapes of invite links and join codes, shared by the SPA and the server.
import * as z from 'zod/mini';
import { privilegeSchema, workspaceIdSchema } from './workspaces';

export const INVITE_DEFAULT_HOURS = 168;
export const INVITE_MAX_HOURS = 720;
export const INVITE_MAX_USES = 1000;

/** Readable aloud and typable: no 0/O, 1/I/L. */
export const JOIN_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const JOIN_CODE_LENGTH = 8;
const joinCodePattern = new RegExp(`^[${JOIN_CODE_ALPHABET}]{${JOIN_CODE_LENGTH}}$`);

/** The stored form: upper case, no separators. */
export function normalizeJoinCode(input: string): string {
  return input.replace(/[\s-]/g, '').toUpperCase();
}

/** The shown form, ABCD-EFGH. */
export function formatJoinCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

// Requests.

/** Managers may only invite viewers; see server/workspaces/permissions.ts. Owners are never invited by link. */
const invitePrivilegeSchema = z.enum(['viewer', 'manager']);

export const createInviteBodySchema = z.object({
  privilege: z._default(invitePrivilegeSchema, 'viewer'),
  expires_in_hours: z._default(z.int().check(z.gte(1), z.lte(INVITE_MAX_HOURS)), INVITE_DEFAULT_HOURS),
  max_uses: z.optional(z.int().check(z.gte(1), z.lte(INVITE_MAX_USES))),
});
export type CreateInviteBody = z.input<typeof createInviteBodySchema>;

export const inviteParamsSchema = z.object({ id: workspaceIdSchema, inviteId: z.uuid() });

export const redeemInviteBodySchema = z.object({ token: z.string().check(z.minLength(1), z.maxLength(256)) });

/** Accepted case-insensitively, with or without the dash. */
export const joinCodeInputSchema = z.pipe(
  z.pipe(z.string().check(z.maxLength(32)), z.transform(normalizeJoinCode)),
  z.string().check(z.regex(joinCodePattern, 'Invalid join code')),
);
export const joinWithCodeBodySchema = z.object({ code: joinCodeInputSchema });

// Responses.

export const createdInviteResponseSchema = z.object({
  id: z.string(),
  /** Shown once: the server keeps only its hash. */
  token: z.string(),
  url_path: z.string(),
  privilege: privilegeSchema,
  expires_at: z.int(),
  max_uses: z.nullable(z.int()),
  uses: z.int(),
});
export type CreatedInviteResponse = z.infer<typeof createdInviteResponseSchema>;

const inviteResponseSchema = z.object({
  id: z.string(),
  privilege: privilegeSchema,
  created_at: z.int(),
  created_by: z.string(),
  expires_at: z.int(),
  max_uses: z.nullable(z.int()),
  uses: z.int(),
});
export const inviteListResponseSchema = z.array(inviteResponseSchema);

export const joinCodeResponseSchema = z.object({
  code: z.string(),
  /** Too many wrong codes near it were tried: refused, even when right, until it is rotated. */
  locked: z.boolean(),
});

/**
 * The workspace the user now belongs to (spec §3 and §7: the invite validation answers `id` alone), and whether they
 * already belonged to it (a link or code used again), so the screen says so rather than "You joined". The spec leaves
 * `already_member` open: an answer without it is a join (false), as this server's answer always says it.
 */
export const joinedWorkspaceResponseSchema = z.object({
  id: z.string(),
  already_member: z._default(z.boolean(), false),
});
