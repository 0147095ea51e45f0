// Response shapes of the internal API (spec §3/§7). zod/mini keeps the first load small.
import * as z from 'zod/mini';

/** Ids arrive as strings or numbers; the SPA uses strings (route params, storage keys). */
const id = z.pipe(
  z.union([z.string().check(z.minLength(1)), z.number()]),
  z.transform((value) => String(value)),
);

export const privilegeSchema = z.enum(['owner', 'manager', 'viewer']);

export const loginResponseSchema = z.object({ access_token: z.string(), refresh_token: z.string() });

export const refreshResponseSchema = z.object({
  access_token: z.string(),
  refresh_token: z.optional(z.string()),
});

export const workspaceSummarySchema = z.looseObject({
  id,
  name: z.optional(z.string()),
  privilege: z.optional(privilegeSchema),
});

export const currentUserSchema = z.object({
  id,
  email: z.string(),
  first_name: z.nullable(z.string()),
  last_name: z.nullable(z.string()),
  workspaces: z.array(workspaceSummarySchema),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

export const workspaceSchema = z.looseObject({
  id,
  name: z.optional(z.string()),
  /** Unix seconds. */
  plan_expired_at: z.nullable(z.number()),
  privilege: privilegeSchema,
});
export type Workspace = z.infer<typeof workspaceSchema>;

export const inviteValidationSchema = z.object({ id });
