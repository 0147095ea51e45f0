// Request and response shapes of the users, workspaces and members endpoints, shared by the SPA and the server.
// Response shapes avoid transforms: the server encodes responses through them.
import * as z from 'zod/mini';
import { storableText } from './text';
import { timeZoneSchema } from './time-zones';

/** A member's role in a workspace (spec §6): owner > manager > viewer. */
export const privilegeSchema = z.enum(['owner', 'manager', 'viewer']);
export type Privilege = z.infer<typeof privilegeSchema>;

/** Languages a workspace can analyse in; the wizard's language step offers these. */
export const workspaceLanguages = ['en', 'ko', 'ja', 'zh', 'es', 'fr', 'de', 'pt', 'it'] as const;
export const workspaceLanguageSchema = z.enum(workspaceLanguages);
export type WorkspaceLanguage = z.infer<typeof workspaceLanguageSchema>;

const WORKSPACE_NAME_MAX = 80;
const PERSON_NAME_MAX = 80;

export const workspaceNameSchema = storableText().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(WORKSPACE_NAME_MAX),
);
const personNameSchema = storableText().check(z.trim(), z.minLength(1), z.maxLength(PERSON_NAME_MAX));

/** Timestamps cross the API as unix seconds (spec §3: plan_expired_at), null when there is none. */
const unixSeconds = z.int();

// Requests.

export const updateProfileBodySchema = z.object({
  first_name: z.optional(personNameSchema),
  last_name: z.optional(personNameSchema),
});

export const createWorkspaceBodySchema = z.object({
  name: workspaceNameSchema,
  language: workspaceLanguageSchema,
  first_name: z.optional(personNameSchema),
  last_name: z.optional(personNameSchema),
});
export type CreateWorkspaceBody = z.infer<typeof createWorkspaceBodySchema>;

/**
 * How many workspaces on a running trial one person may own: creating another is refused (409 trial_limit) until one
 * of them is on a paid plan or its trial has ended. The creation form says so (trialLimitSentence).
 */
export const TRIAL_WORKSPACES_PER_PERSON = 3;
export const trialLimitSentence = () =>
  `A new workspace starts on a free trial. You can own up to ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a trial at a time.`;

export const updateWorkspaceBodySchema = z.object({
  name: z.optional(workspaceNameSchema),
  language: z.optional(workspaceLanguageSchema),
  /** The IANA zone the dashboards count days and hours in (see time-zones.ts). */
  time_zone: z.optional(timeZoneSchema),
});
export type UpdateWorkspaceBody = z.infer<typeof updateWorkspaceBodySchema>;

/** Workspace ids are text: generated UUIDs, or the configured internal id. */
export const workspaceIdSchema = storableText().check(z.minLength(1), z.maxLength(200));
export const workspaceParamsSchema = z.object({ id: workspaceIdSchema });
export const memberParamsSchema = z.object({ id: workspaceIdSchema, userId: z.uuid() });

export const updateMemberBodySchema = z.object({ privilege: privilegeSchema });

// Responses.

export const workspaceResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  language: z.string(),
  plan: z.string(),
  plan_expired_at: z.nullable(unixSeconds),
  privilege: privilegeSchema,
  /** The IANA time zone dashboards count days and hours in (and custom date ranges are days of). */
  time_zone: z.string(),
});
export type WorkspaceResponse = z.infer<typeof workspaceResponseSchema>;

export const currentUserResponseSchema = z.object({
  id: z.string(),
  email: z.string(),
  first_name: z.nullable(z.string()),
  last_name: z.nullable(z.string()),
  workspaces: z.array(workspaceResponseSchema),
});
export type CurrentUserResponse = z.infer<typeof currentUserResponseSchema>;

export const memberResponseSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  first_name: z.nullable(z.string()),
  last_name: z.nullable(z.string()),
  privilege: privilegeSchema,
  joined_at: unixSeconds,
});
export type MemberResponse = z.infer<typeof memberResponseSchema>;
export const memberListResponseSchema = z.array(memberResponseSchema);
