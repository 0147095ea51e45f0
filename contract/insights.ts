// The insights dashboards (POST /social/insights/*): one request shape for every dashboard — a saved query or an ad-hoc
// query, optional filters and drill-down refinements. Shared by the SPA and the server; the responses are in
// insights-responses.ts, and what each figure counts is written in server/social/insights/README.md.
import * as z from 'zod/mini';
import { MEDIA_VALUES, POST_KIND_VALUES, SENTIMENT_VALUES } from './social-posts';
import { PLATFORM_VALUES, queryFiltersSchema } from './social-scope';
import { workspaceIdSchema } from './workspaces';

/** Chart buckets: an hour up to 2 days, a day up to 90 days, an ISO week (from Monday) beyond. */
export const BUCKET_VALUES = ['hour', 'day', 'week'] as const;
export type Bucket = (typeof BUCKET_VALUES)[number];

const REFINE_FIELDS = [
  'date',
  'platform',
  'hashtag',
  'mention',
  'term',
  'author',
  'sentiment',
  'language',
  'media',
  'kind',
  'domain',
  'followers',
  'hour_of_week',
  'tag',
] as const;

export const INSIGHT_LIMITS = {
  refineItems: 20,
  refineValues: 50,
  pageDefault: 25,
  pageMax: 100,
  topDefault: 10,
  topMax: 50,
  cursorMax: 512,
} as const;

const values = <T extends z.core.SomeType>(value: T) =>
  z.array(value).check(
    z.minLength(1, { error: 'A refinement needs at least one value' }),
    z.maxLength(INSIGHT_LIMITS.refineValues, {
      error: `A refinement takes at most ${INSIGHT_LIMITS.refineValues} values`,
    }),
  );
const exclude = z.optional(z.boolean({ error: 'exclude is true or false' }));
const word = (pattern: RegExp, error: string) =>
  z
    .string({ error })
    .check(z.minLength(1, { error }), z.maxLength(100, { error }), z.regex(pattern, { error }));
const oneOf = <const T extends readonly [string, ...string[]]>(options: T, what: string) =>
  z.enum(options, { error: `${what} must be one of ${options.join(', ')}` });
/** A refinement object with a clear message for keys it does not know. */
const refine = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown key ${issue.keys.map((key) => JSON.stringify(key)).join(', ')} in a refinement (use field, values, exclude${'bucket' in shape ? ', bucket' : ''})`
        : undefined,
  });

/** A bucket of a chart: its start as an ISO 8601 instant (any offset) and the bucket's size. */
const dateRefine = refine({
  field: z.literal('date'),
  bucket: oneOf(BUCKET_VALUES, 'bucket'),
  values: values(z.iso.datetime({ offset: true, error: 'A bucket start is an ISO 8601 date-time' })),
  exclude,
});
/** PostgreSQL's integer, in which follower counts are stored and compared. */
const FOLLOWERS_MAX = 2_147_483_647;
/** Followers from min (inclusive) to max (exclusive); either bound may be left out. */
const count = z
  .int({ error: 'A follower bound is a whole number ≥ 0' })
  .check(
    z.gte(0, { error: 'A follower bound is a whole number ≥ 0' }),
    z.lte(FOLLOWERS_MAX, { error: `A follower bound is at most ${FOLLOWERS_MAX}` }),
  );
const followerRange = z.strictObject(
  { min: z.optional(count), max: z.optional(count) },
  { error: 'A follower range is {"min": n, "max": n} (either may be left out)' },
);

/** A cell of the performance dashboard's best-time grid: ISO day of the week (1 = Monday) and hour of the day. */
const HOUR_OF_WEEK_ERROR = 'An hour of the week is {"day": 1–7 (1 = Monday), "hour": 0–23}';
const hourOfWeek = z.strictObject(
  {
    day: z
      .int({ error: 'day is a whole number from 1 (Monday) to 7 (Sunday)' })
      .check(
        z.gte(1, { error: 'day is a whole number from 1 (Monday) to 7 (Sunday)' }),
        z.lte(7, { error: 'day is a whole number from 1 (Monday) to 7 (Sunday)' }),
      ),
    hour: z
      .int({ error: 'hour is a whole number from 0 to 23' })
      .check(
        z.gte(0, { error: 'hour is a whole number from 0 to 23' }),
        z.lte(23, { error: 'hour is a whole number from 0 to 23' }),
      ),
  },
  { error: HOUR_OF_WEEK_ERROR },
);

const refineSchema = z.discriminatedUnion(
  'field',
  [
    dateRefine,
    refine({ field: z.literal('platform'), values: values(oneOf(PLATFORM_VALUES, 'platform')), exclude }),
    refine({
      field: z.literal('hashtag'),
      values: values(word(/^#?[\p{L}\p{N}\p{M}_]+$/u, 'A hashtag is letters, digits and _')),
      exclude,
    }),
    refine({
      field: z.literal('mention'),
      values: values(word(/^@?[\p{L}\p{N}\p{M}_.-]+$/u, 'A mention is a handle: letters, digits, _ . -')),
      exclude,
    }),
    refine({
      field: z.literal('term'),
      values: values(word(/^\S+$/u, 'A term is one word, without spaces')),
      exclude,
    }),
    refine({
      field: z.literal('author'),
      values: values(
        z.union(
          [
            z.int().check(z.gte(1)),
            word(/^@?[\p{L}\p{N}\p{M}_.-]+$/u, 'An author is a profile id or a handle'),
          ],
          { error: 'An author is a profile id (a whole number) or a handle' },
        ),
      ),
      exclude,
    }),
    // A label of the rated posts, or not_rated: too little text to rate (the overview's split counts it apart).
    refine({
      field: z.literal('sentiment'),
      values: values(oneOf([...SENTIMENT_VALUES, 'not_rated'] as const, 'sentiment')),
      exclude,
    }),
    refine({
      field: z.literal('language'),
      values: values(word(/^[a-z]{2,3}$/, 'A language is a 2–3 letter code such as en, ko, ja')),
      exclude,
    }),
    refine({ field: z.literal('media'), values: values(oneOf(MEDIA_VALUES, 'media')), exclude }),
    refine({ field: z.literal('kind'), values: values(oneOf(POST_KIND_VALUES, 'kind')), exclude }),
    refine({
      field: z.literal('domain'),
      values: values(word(/^[\p{L}\p{N}.-]+$/u, 'A domain is a host name such as example.com')),
      exclude,
    }),
    refine({ field: z.literal('followers'), values: values(followerRange), exclude }),
    refine({ field: z.literal('hour_of_week'), values: values(hourOfWeek), exclude }),
    // A tag of the workspace's categories (its id, from GET /workspaces/{id}/tag-categories): posts that carry it.
    refine({
      field: z.literal('tag'),
      values: values(z.uuid({ error: 'A tag is its id (a UUID)' })),
      exclude,
    }),
  ],
  { error: `Unknown refine field: use one of ${REFINE_FIELDS.join(', ')}` },
);
export type Refine = z.infer<typeof refineSchema>;

/** Drill-down refinements, ANDed; the values of one are ORed; `exclude` keeps the posts that match none of them. */
export const refinesSchema = z.array(refineSchema).check(z.maxLength(INSIGHT_LIMITS.refineItems));

/** Every dashboard's request: the scope (a saved query or an ad-hoc query), filters and drill-down refinements. */
const insightsScopeShape = {
  workspace_id: workspaceIdSchema,
  /** A saved query of the workspace: its text and filters are used (filters below override them key by key). */
  saved_query_id: z.optional(z.uuid()),
  /** An ad-hoc query (the query language); empty or blank means every post. Pass this or saved_query_id. */
  query: z.optional(z.string()),
  filters: z.optional(queryFiltersSchema),
  refine: z.optional(refinesSchema),
};
export const insightsBodySchema = z.object(insightsScopeShape);
export type InsightsBody = z.input<typeof insightsBodySchema>;

const pageShape = {
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(INSIGHT_LIMITS.cursorMax))),
  limit: z._default(z.int().check(z.gte(1), z.lte(INSIGHT_LIMITS.pageMax)), INSIGHT_LIMITS.pageDefault),
};
const topShape = {
  limit: z._default(z.int().check(z.gte(1), z.lte(INSIGHT_LIMITS.topMax)), INSIGHT_LIMITS.topDefault),
};

import { POST_SORTS, PROFILE_SORTS } from './sorts';
export { POST_SORTS, PROFILE_SORTS, type PostSort, type ProfileSort } from './sorts';

export const postsBodySchema = z.object({
  ...insightsScopeShape,
  ...pageShape,
  sort: z._default(z.enum(POST_SORTS), 'engagement'),
});
export const filteredPostsBodySchema = z.object({
  ...insightsScopeShape,
  ...pageShape,
  sort: z._default(z.enum(POST_SORTS), 'recency'),
});
export const filteredProfilesBodySchema = z.object({
  ...insightsScopeShape,
  ...pageShape,
  sort: z._default(z.enum(PROFILE_SORTS), 'mentions'),
});
export const peopleBodySchema = z.object({ ...insightsScopeShape, ...topShape });
export const conversationBodySchema = z.object({ ...insightsScopeShape, ...topShape });

/** The most rows one CSV export writes (and its default). */
export const EXPORT_MAX_ROWS = 100_000;
const exportShape = {
  ...insightsScopeShape,
  /** The first max_rows rows of the list, in its order. */
  max_rows: z._default(
    z
      .int({ error: `max_rows is a whole number from 1 to ${EXPORT_MAX_ROWS}` })
      .check(
        z.gte(1, { error: `max_rows is a whole number from 1 to ${EXPORT_MAX_ROWS}` }),
        z.lte(EXPORT_MAX_ROWS, { error: `max_rows is a whole number from 1 to ${EXPORT_MAX_ROWS}` }),
      ),
    EXPORT_MAX_ROWS,
  ),
};
/** CSV exports: the filtered lists' bodies (same defaults) without the paging, and at most max_rows rows. */
export const exportPostsBodySchema = z.object({
  ...exportShape,
  sort: z._default(z.enum(POST_SORTS), 'recency'),
});
export const exportProfilesBodySchema = z.object({
  ...exportShape,
  sort: z._default(z.enum(PROFILE_SORTS), 'mentions'),
});
