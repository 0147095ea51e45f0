// Saved queries of a workspace (internal API): request and response shapes shared by the SPA and the server.
// "Save as query" in discover posts the same query text and filters to the create endpoint.
import * as z from 'zod/mini';
import { queryFiltersSchema } from './social-scope';
import { storableText } from './text';
import { workspaceIdSchema } from './workspaces';

const SAVED_QUERY_NAME_MAX = 100;

/** Trimmed, 1 to 100 characters; unique in its workspace regardless of case. */
const savedQueryNameSchema = storableText().check(
  z.trim(),
  z.minLength(1),
  z.maxLength(SAVED_QUERY_NAME_MAX),
);

/** The filters as stored: the scope's filters, with unknown keys refused rather than silently dropped. */
export const savedQueryFiltersSchema = z.strictObject(queryFiltersSchema.shape);
export type SavedQueryFilters = z.infer<typeof savedQueryFiltersSchema>;

/**
 * The query text is any string here: one that does not parse is answered with 400 `invalid_query` and the parser's
 * errors (each with a 1-based column), the same errors POST /social/query/validate gives.
 */
export const createSavedQueryBodySchema = z.strictObject({
  name: savedQueryNameSchema,
  query: z.string(),
  filters: z._default(savedQueryFiltersSchema, {}),
});

/** Any of the fields; filters, when given, replace the stored filters as a whole. */
export const updateSavedQueryBodySchema = z.strictObject({
  name: z.optional(savedQueryNameSchema),
  query: z.optional(z.string()),
  filters: z.optional(savedQueryFiltersSchema),
});

export const savedQueryParamsSchema = z.object({ id: workspaceIdSchema, queryId: z.uuid() });

export const savedQueryResponseSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  name: z.string(),
  /** As typed. */
  query: z.string(),
  /** The canonical text (printQuery): explicit AND, canonical field values, only needed parentheses. */
  normalized: z.string(),
  /** The names of the workspace's lists the query reads (`author:list(competitors)`), in order of first use. */
  lists: z.array(z.string()),
  filters: queryFiltersSchema,
  /** Null once the author's account is deleted. */
  created_by: z.nullable(z.string()),
  /** Unix seconds, as every internal-API timestamp. */
  created_at: z.int(),
  updated_at: z.int(),
});
export type SavedQuery = z.infer<typeof savedQueryResponseSchema>;

/** How many saved queries the workspace has against its plan's limit, shown before the limit bites. */
/** `limit` is the plan's (server/billing/plans.json); null without one (the demo and internal workspaces). */
const savedQueryUsageSchema = z.object({ count: z.int(), limit: z.nullable(z.int()) });

export const savedQueryListResponseSchema = z.object({
  /** Newest first. */
  saved_queries: z.array(savedQueryResponseSchema),
  usage: savedQueryUsageSchema,
});
export type SavedQueryList = z.infer<typeof savedQueryListResponseSchema>;

/** Days in a saved query's volume: the last 7 whole days and today, in the workspace's time zone. */
export const SAVED_QUERY_VOLUME_DAYS = 8;

/** POST /social/saved-queries/volume: every saved query of the workspace at once. */
export const savedQueryVolumeBodySchema = z.object({ workspace_id: workspaceIdSchema });

export const savedQueryVolumeResponseSchema = z.object({
  /** The workspace's IANA zone: the zone of every day below. */
  time_zone: z.string(),
  /** The wall-clock dates counted, "YYYY-MM-DD", oldest first; the last is today (counted up to now). */
  days: z.array(z.string()),
  /** From the first day's first instant (inclusive) to now (exclusive), ISO 8601 in UTC. */
  range: z.object({ from: z.string(), to: z.string() }),
  /** What was counted, in one sentence. */
  counted: z.string(),
  saved_queries: z.array(
    z.object({
      id: z.string(),
      /** Matching posts per day of `days` (as the overview dashboard counts mentions); null if it no longer parses. */
      counts: z.nullable(z.array(z.int())),
      total: z.nullable(z.int()),
    }),
  ),
});
export type SavedQueryVolume = z.infer<typeof savedQueryVolumeResponseSchema>;
