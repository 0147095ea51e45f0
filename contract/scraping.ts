// The internal scraping area: collection jobs, their runs, logs and refused items, and the corpus totals
// the screen shows. Staff only; request and response shapes shared by the SPA and the server.
import * as z from 'zod/mini';
import { PLATFORM_VALUES } from './social-scope';
import { storableText } from './text';

/** The connectors, one per kind of source. Uploads are created by POST /api/scraping/uploads, not by the form. */
const SOURCE_KINDS = [
  'mastodon_hashtag',
  'mastodon_account',
  'bluesky_search',
  'feed',
  'reddit_search',
  'reddit_subreddit',
  'youtube_search',
  'youtube_channel',
  'hackernews_search',
  'x_search',
  'upload',
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Pages one run fetches at most: a backfill is bounded; later runs only fetch what is newer. */
export const MAX_PAGES_LIMIT = 200;
const pagesMessage = `A whole number from 1 to ${MAX_PAGES_LIMIT}`;
const maxPages = z._default(
  z
    .int({ error: pagesMessage })
    .check(z.gte(1, { error: pagesMessage }), z.lte(MAX_PAGES_LIMIT, { error: pagesMessage })),
  10,
);

/**
 * A URL staff type for a source: http or https only, no user name or password, no fragment. The server also refuses
 * hosts that resolve to private, loopback or link-local addresses unless SCRAPING_ALLOW_PRIVATE_HOSTS is on
 * (docs/scraping.md).
 */
export function sourceUrlProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (!url) return 'Must be a full URL (https://…)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an http or https URL';
  if (url.username || url.password) return 'Must not contain a user name or password';
  if (url.hash) return 'Must not contain a #fragment';
  return undefined;
}
const sourceUrl = z.string().check(
  z.trim(),
  z.maxLength(2_000),
  z.superRefine((value, ctx) => {
    const problem = sourceUrlProblem(value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: value });
  }),
);
/** A Mastodon instance: its origin (https://mastodon.social); a path is not allowed. */
const instanceUrl = sourceUrl.check(
  z.refine((value) => (URL.parse(value)?.pathname ?? '/') === '/' && !URL.parse(value)?.search, {
    error: 'Must be the instance’s address only (https://mastodon.social)',
  }),
);

/** Kinds of credential staff store (encrypted) for the sources that need one; each job names one of its kind. */
export const CREDENTIAL_KINDS = ['reddit', 'youtube', 'x'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

const credentialId = z.uuid({ error: 'Choose the credentials this source uses' });
const searchText = (max: number) =>
  storableText().check(
    z.trim(),
    z.minLength(1, { error: 'Type what to search for' }),
    z.maxLength(max, { error: `At most ${max} characters` }),
  );
/** A subreddit's name, without r/: 2–21 letters, digits or underscores. */
const subredditName = z.string().check(
  z.trim(),
  z.regex(/^(?:\/?r\/)?[A-Za-z0-9][A-Za-z0-9_]{1,20}$/, {
    error: 'A subreddit’s name such as dataisbeautiful (letters, digits, underscores)',
  }),
);
/** Levels of replies under each post (0: the posts alone; Reddit's API returns up to 10). */
const commentDepth = z._default(
  z
    .int({ error: 'A whole number from 0 to 10' })
    .check(
      z.gte(0, { error: 'A whole number from 0 to 10' }),
      z.lte(10, { error: 'A whole number from 0 to 10' }),
    ),
  2,
);
/** Pages of comment threads read per video (0: the videos alone); each page costs 1 quota unit. */
const commentPages = z._default(
  z
    .int({ error: 'A whole number from 0 to 20' })
    .check(
      z.gte(0, { error: 'A whole number from 0 to 20' }),
      z.lte(20, { error: 'A whole number from 0 to 20' }),
    ),
  1,
);

export const sourceParamsSchema = z.discriminatedUnion('source', [
  z.strictObject({
    source: z.literal('mastodon_hashtag'),
    instance: instanceUrl,
    /** Without '#': letters, digits and underscores. */
    hashtag: z
      .string()
      .check(
        z.trim(),
        z.regex(/^#?[\p{L}\p{N}_]{1,100}$/u, { error: 'Letters, digits and underscores only (no spaces)' }),
      ),
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('mastodon_account'),
    instance: instanceUrl,
    /** user or user@other.instance */
    account: z.string().check(
      z.trim(),
      z.regex(/^@?[A-Za-z0-9_]{1,30}(@[A-Za-z0-9.-]{1,253})?$/, {
        error: 'An account name such as Gargron or Gargron@mastodon.social',
      }),
    ),
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('bluesky_search'),
    /** Search syntax of app.bsky.feed.searchPosts (words, "phrases", from:handle, #tag). */
    query: storableText().check(
      z.trim(),
      z.minLength(1, { error: 'Type what to search for' }),
      z.maxLength(300, { error: 'At most 300 characters' }),
    ),
    /** Only posts in this language (BCP 47 primary subtag); any when absent. */
    lang: z.optional(
      z.string().check(z.regex(/^[a-z]{2,3}$/, { error: 'A language code such as en or ja' })),
    ),
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('feed'),
    /** An RSS 2.0 or Atom feed. */
    url: sourceUrl,
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('reddit_search'),
    credential_id: credentialId,
    /** Reddit's search syntax (words, "phrases", title:, author:, subreddit:). */
    query: searchText(512),
    /** Only within this subreddit; all of Reddit when absent. */
    subreddit: z.optional(subredditName),
    comment_depth: commentDepth,
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('reddit_subreddit'),
    credential_id: credentialId,
    /** The subreddit's new posts, newest first. */
    subreddit: subredditName,
    comment_depth: commentDepth,
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('youtube_search'),
    credential_id: credentialId,
    /** YouTube search's q (words, "phrases", -excluded, a|b). */
    query: searchText(500),
    comment_pages: commentPages,
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('youtube_channel'),
    credential_id: credentialId,
    /** A channel id (UC followed by 22 characters), from the channel's address. */
    channel_id: z
      .string()
      .check(
        z.trim(),
        z.regex(/^UC[A-Za-z0-9_-]{22}$/, { error: 'A channel id such as UC_x5XG1OV2P6uZZ5FSM9Ttw' }),
      ),
    comment_pages: commentPages,
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('hackernews_search'),
    /** Words to find in stories and comments (Algolia's full-text search). */
    query: searchText(300),
    /** Stories, comments, or both. */
    items: z._default(z.enum(['all', 'story', 'comment']), 'all'),
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('x_search'),
    credential_id: credentialId,
    /** X's search query language (words, "phrases", #tags, from:, lang:, -is:retweet). */
    query: searchText(512),
    max_pages: maxPages,
  }),
  z.strictObject({
    source: z.literal('upload'),
    upload_id: z.uuid(),
    format: z.enum(['ndjson', 'csv']),
    file_name: z.string().check(z.maxLength(255)),
    bytes: z.int().check(z.gte(0)),
  }),
]);
export type SourceParams = z.infer<typeof sourceParamsSchema>;
export type SourceParamsInput = z.input<typeof sourceParamsSchema>;

/** The parameters the form edits: every source but uploads. */
export type FormSourceParams = Exclude<SourceParamsInput, { source: 'upload' }>;

/** Minutes between runs of a scheduled job: at least 5 (sources rate-limit), at most a week. */
const everyMessage = 'Whole minutes from 5 to 10080 (a week), or empty to run once';
const everyMinutesSchema = z.nullable(
  z
    .int({ error: everyMessage })
    .check(z.gte(5, { error: everyMessage }), z.lte(7 * 24 * 60, { error: everyMessage })),
);

const jobNameSchema = storableText().check(
  z.trim(),
  z.minLength(1, { error: 'Give the job a name' }),
  z.maxLength(100, { error: 'At most 100 characters' }),
);

export const createScrapeJobBodySchema = z.strictObject({
  name: jobNameSchema,
  params: sourceParamsSchema,
  /** Null or absent: run once, now. */
  every_minutes: z._default(everyMinutesSchema, null),
});

/** Name, schedule and parameters; the source's kind cannot change (create another job). */
export const updateScrapeJobBodySchema = z.strictObject({
  name: z.optional(jobNameSchema),
  params: z.optional(sourceParamsSchema),
  every_minutes: z.optional(everyMinutesSchema),
});

export const scrapeJobParamsSchema = z.object({ jobId: z.uuid() });
export const scrapeRunParamsSchema = z.object({ runId: z.uuid() });

const JOB_STATES = ['active', 'paused', 'cancelled'] as const;
const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'paused', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Statuses of a run that is not over: a job has at most one. */
export const OPEN_RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'waiting', 'paused'];

const scrapeRunSchema = z.object({
  id: z.string(),
  job_id: z.string(),
  status: z.enum(RUN_STATUSES),
  pages: z.int(),
  fetched: z.int(),
  inserted: z.int(),
  updated: z.int(),
  unchanged: z.int(),
  refused: z.int(),
  /** Posts the source said were deleted, taken out of the corpus. */
  removed: z.int(),
  /** Uploads: bytes read of the file's size. */
  bytes_done: z.nullable(z.number()),
  bytes_total: z.nullable(z.number()),
  attempts: z.int(),
  error: z.nullable(z.string()),
  /** Unix seconds. */
  queued_at: z.int(),
  started_at: z.nullable(z.int()),
  finished_at: z.nullable(z.int()),
});
export type ScrapeRun = z.infer<typeof scrapeRunSchema>;

export const scrapeJobSchema = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(SOURCE_KINDS),
  /** The corpus platform the source writes; null for uploads (each row names its own). */
  platform: z.nullable(z.enum(PLATFORM_VALUES)),
  params: sourceParamsSchema,
  every_minutes: z.nullable(z.int()),
  state: z.enum(JOB_STATES),
  /** Unix seconds; null when no run is due (run once and done, paused, cancelled, or a run under way). */
  next_run_at: z.nullable(z.int()),
  created_at: z.int(),
  updated_at: z.int(),
  /** The newest run, if any. */
  last_run: z.nullable(scrapeRunSchema),
});
export type ScrapeJob = z.infer<typeof scrapeJobSchema>;

export const scrapeJobListSchema = z.object({ jobs: z.array(scrapeJobSchema) });

export const scrapeJobDetailSchema = z.object({
  job: scrapeJobSchema,
  /** Newest first, at most 20. */
  runs: z.array(scrapeRunSchema),
});

export const scrapeLogSchema = z.object({
  entries: z.array(
    z.object({ id: z.number(), at: z.int(), level: z.enum(['info', 'warn', 'error']), message: z.string() }),
  ),
});

export const scrapeRefusalsSchema = z.object({
  items: z.array(
    z.object({ id: z.number(), ref: z.string(), reason: z.string(), raw: z.nullable(z.string()) }),
  ),
  /** All refused items of the run (the list shows the first 500). */
  total: z.int(),
});

export const uploadQuerySchema = z.object({
  format: z.enum(['ndjson', 'csv']),
  file_name: storableText().check(z.trim(), z.minLength(1), z.maxLength(255)),
});

export const corpusTotalsQuerySchema = z.object({
  days: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(90)), 14),
});

export const corpusTotalsSchema = z.object({
  /** UTC days, "YYYY-MM-DD", oldest first. */
  days: z.array(z.string()),
  /** Per platform with any post in the range: posts per day, aligned with `days`. */
  platforms: z.array(
    z.object({ platform: z.enum(PLATFORM_VALUES), posts: z.array(z.int()), total: z.int() }),
  ),
  /** Every post in the corpus, per platform (all time). */
  all_time: z.array(z.object({ platform: z.enum(PLATFORM_VALUES), posts: z.int() })),
});
export type CorpusTotals = z.infer<typeof corpusTotalsSchema>;

/** The corpus platform each source writes. */
export const SOURCE_PLATFORM: Record<Exclude<SourceKind, 'upload'>, (typeof PLATFORM_VALUES)[number]> = {
  mastodon_hashtag: 'mastodon',
  mastodon_account: 'mastodon',
  bluesky_search: 'bluesky',
  feed: 'rss',
  reddit_search: 'reddit',
  reddit_subreddit: 'reddit',
  youtube_search: 'youtube',
  youtube_channel: 'youtube',
  hackernews_search: 'hackernews',
  x_search: 'x',
};

/** The credential kind each source needs, if any. */
export const SOURCE_CREDENTIAL: Partial<Record<SourceKind, CredentialKind>> = {
  reddit_search: 'reddit',
  reddit_subreddit: 'reddit',
  youtube_search: 'youtube',
  youtube_channel: 'youtube',
  x_search: 'x',
};

/** YouTube Data API quota units per request (its quota calculator): a search page 100, a list page 1. */
export const YOUTUBE_UNITS = { search: 100, list: 1 } as const;
/** Videos per page of a search or of a channel's uploads (the API's maximum maxResults). */
export const YOUTUBE_PAGE_SIZE = 50;
/** The daily quota a YouTube project gets by default. */
export const YOUTUBE_DEFAULT_DAILY_QUOTA = 10_000;

/**
 * The most quota units one run of a YouTube job spends: per page of videos, the page itself (a search 100, a page of a
 * channel's uploads 1), the videos' statistics (1) and up to `comment_pages` comment pages per video (1 each); a
 * channel is looked up once (1). The form and the job show it before it runs.
 */
export function youtubeUnitsPerRun(
  params: Extract<SourceParams, { source: 'youtube_search' | 'youtube_channel' }>,
): number {
  const pageCost =
    (params.source === 'youtube_search' ? YOUTUBE_UNITS.search : YOUTUBE_UNITS.list) +
    YOUTUBE_UNITS.list +
    YOUTUBE_PAGE_SIZE * params.comment_pages * YOUTUBE_UNITS.list;
  return (params.source === 'youtube_channel' ? YOUTUBE_UNITS.list : 0) + params.max_pages * pageCost;
}
