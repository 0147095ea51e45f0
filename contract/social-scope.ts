// What a social query looks at: its text, the saved query's filters, and a date range. Shared by saved queries,
// discover and insights (server) and their screens (SPA).
import * as z from 'zod/mini';

export const PLATFORM_VALUES = [
  'x',
  'instagram',
  'tiktok',
  'youtube',
  'facebook',
  'reddit',
  'mastodon',
  'bluesky',
  'rss',
  'hackernews',
] as const;
const platformSchema = z.enum(PLATFORM_VALUES);

/** A BCP 47 primary language subtag: en, ko, ja, es, … */
const languageCodeSchema = z.string().check(z.regex(/^[a-z]{2,3}$/));

/** The filters a saved query keeps (and discover takes): each list empty or absent means "all". */
export const queryFiltersSchema = z.object({
  platforms: z.optional(z.array(platformSchema).check(z.maxLength(PLATFORM_VALUES.length))),
  languages: z.optional(z.array(languageCodeSchema).check(z.maxLength(20))),
  /** ISO 8601 instants; `from` inclusive, `to` exclusive. */
  from: z.optional(z.iso.datetime({ offset: true })),
  to: z.optional(z.iso.datetime({ offset: true })),
});
export type QueryFilters = z.infer<typeof queryFiltersSchema>;

/** The longest date range any request may cover: analysts ask for up to a year; more is a mistake or abuse. */
export const MAX_RANGE_DAYS = 400;
