// The query language's limits and the body and answer of POST /social/query/validate, shared by the SPA and the
// server. The language itself (parser, printer, SQL) lives in server/query.
import * as z from 'zod/mini';
import { queryFiltersSchema } from './social-scope';
import { workspaceIdSchema } from './workspaces';

/** What a query may contain; the parser names the limit in its error message. */
export const QUERY_LIMITS = {
  /** Characters as JavaScript counts them (UTF-16 code units). */
  maxLength: 4096,
  /** Words, phrases, wildcards, hashtags, mentions and field filters together. */
  maxTerms: 300,
  /** Parentheses inside parentheses. */
  maxDepth: 10,
  minNearDistance: 1,
  maxNearDistance: 20,
  /** A phrase's slop, `"flat white"~3`: extra positions its words may spread over. */
  minPhraseSlop: 1,
  maxPhraseSlop: 20,
  /** Characters before the `*` of a trailing wildcard. */
  minWildcardPrefix: 2,
} as const;

/** validate counts matching posts up to this many, then answers with matches_capped. */
export const QUERY_MATCH_COUNT_CAP = 100_000;

export const validateQueryBodySchema = z.object({
  workspace_id: workspaceIdSchema,
  /**
   * Any text: a query that is too long or malformed is a normal answer (valid: false), not a 400 (a NUL or a lone
   * surrogate, refused in every string of every request, is one).
   */
  query: z.string(),
  /**
   * Optional: count only within these filters and date range, as discover searches (a range defaults to the last 30
   * days once filters are given). Without it, the whole corpus is counted.
   */
  filters: z.optional(z.strictObject(queryFiltersSchema.shape)),
});

/** Where a query is wrong: column is 1-based (UTF-16 code units, as a textarea's selection counts them). */
const queryErrorSchema = z.object({
  message: z.string(),
  column: z.int().check(z.gte(1)),
  length: z.int().check(z.gte(0)),
});
export type QueryError = z.infer<typeof queryErrorSchema>;

/**
 * A warning about a query that parses but may not say what was meant (a lower-case `or` between words, AND and OR
 * mixed without brackets, a very short wildcard, a query that can only exclude). It never refuses the query. `fix`,
 * when given, is the one edit most likely meant: replace `length` characters at the 1-based `column` with `text`.
 */
const QUERY_WARNING_CODES = [
  'lowercase_operator',
  'mixed_and_or',
  'short_wildcard',
  'only_negative',
] as const;
const queryWarningSchema = z.object({
  code: z.enum(QUERY_WARNING_CODES),
  message: z.string(),
  column: z.int().check(z.gte(1)),
  length: z.int().check(z.gte(0)),
  fix: z.optional(
    z.object({
      label: z.string(),
      column: z.int().check(z.gte(1)),
      length: z.int().check(z.gte(0)),
      text: z.string(),
    }),
  ),
});
export type QueryWarning = z.infer<typeof queryWarningSchema>;

const validQueryResponseSchema = z.object({
  valid: z.literal(true),
  /** The query as the server understood it: explicit AND, canonical field values, only needed parentheses. */
  normalized: z.string(),
  /** Matching posts, at most QUERY_MATCH_COUNT_CAP; null when counting took too long. */
  matches: z.nullable(z.int()),
  /** True when there are more than QUERY_MATCH_COUNT_CAP matches (matches is then the cap). */
  matches_capped: z.boolean(),
  /**
   * Optional: why matches is null when it is not a time-out — the figures are being prepared or cannot be computed
   * (contract/figures.ts). The query's syntax is checked all the same.
   */
  matches_unavailable: z.optional(z.object({ error: z.string(), message: z.string() })),
  /** Optional: what may not be meant, in the order of their columns (none when absent). */
  warnings: z.optional(z.array(queryWarningSchema)),
});

const invalidQueryResponseSchema = z.object({
  valid: z.literal(false),
  errors: z.array(queryErrorSchema),
});

export const validateQueryResponseSchema = z.discriminatedUnion('valid', [
  validQueryResponseSchema,
  invalidQueryResponseSchema,
]);
export type ValidateQueryResponse = z.infer<typeof validateQueryResponseSchema>;

/**
 * 400 `invalid_query`: the body of discover, the dashboards and saved queries for a query that does not parse, with
 * each error at its 1-based column (as the query editor highlights it).
 */
export const invalidQueryErrorSchema = z.object({
  error: z.literal('invalid_query'),
  message: z.string(),
  errors: z.array(queryErrorSchema),
});
