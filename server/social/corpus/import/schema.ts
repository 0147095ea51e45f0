// One row of an import file (docs/corpus-format.md): a post with its author's profile fields inline. Validated
// strictly (unknown fields are rejected), with a readable reason per problem.
import * as z from 'zod/mini';
import type { $ZodIssue } from 'zod/v4/core';
import { MEDIA_TYPES, PLATFORMS, POST_KINDS } from '@server/db/social-schema';

const INT_MAX = 2_147_483_647;
const noNul = z.refine<string>((value) => !value.includes('\u0000'), {
  error: 'contains a NUL character (U+0000), which PostgreSQL cannot store',
});
/** JSON can escape half of a surrogate pair ("\ud83d"): not a character, and PostgreSQL refuses it. */
const wellFormed = z.refine<string>((value) => !/\p{Cs}/u.test(value), {
  error: 'contains an unpaired UTF-16 surrogate (invalid Unicode)',
});

const text = (max: number) => z.string().check(z.maxLength(max), noNul, wellFormed);
const required = (max: number) => z.string().check(z.minLength(1), z.maxLength(max), noNul, wellFormed);
const count = () => z.number().check(z.int(), z.gte(0), z.lte(INT_MAX));
const optional = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

/** ISO 8601 date-time with an offset (Z or ±hh, ±hhmm, ±hh:mm); seconds and fractions optional. */
const ISO_OFFSET_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** The instant (ms since the epoch) of an ISO 8601 date-time with offset; undefined when it is not a real one. */
export function parseInstant(value: string): number | undefined {
  const m = ISO_OFFSET_DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = Number(m[6] ?? 0);
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  // Date.UTC reads years 0–99 as 1900–1999: the date is set by setUTCFullYear, which does not.
  const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => {
    const date = new Date(Date.UTC(2000, 0, 1, h, mi, s, ms));
    date.setUTCFullYear(y, mo, d);
    return date;
  };
  const daysInMonth = utc(year, month, 0).getUTCDate();
  const [offsetHours, offsetMinutes] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  const valid =
    year >= 1 && // PostgreSQL has no year 0 (1 BC)
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 14 &&
    offsetMinutes <= 59;
  if (!valid) return undefined;
  const sign = m[9] === '-' ? -1 : 1;
  const offset = m[8] ? 0 : sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return utc(year, month - 1, day, hour, minute, second, millis).getTime() - offset;
}

const isInstant = (value: string) => parseInstant(value) !== undefined;

const importRowSchema = z.strictObject({
  platform: z.enum(PLATFORMS),
  external_id: required(200),
  author_external_id: required(200),
  author_handle: required(100),
  author_display_name: optional(text(200)),
  author_followers: optional(count()),
  author_following: optional(count()),
  author_verified: optional(z.boolean()),
  author_bio: optional(text(2_000)),
  author_country: optional(
    z.string().check(z.regex(/^[A-Za-z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 code (US, JP, …)' })),
  ),
  author_language: optional(
    z.string().check(
      z.regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, {
        error: 'must be a BCP 47 language tag (en, ja, pt-BR, …)',
      }),
    ),
  ),
  author_avatar_url: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
  text: text(100_000),
  language: optional(
    z.string().check(
      z.regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, {
        error: 'must be a BCP 47 language tag (en, ja, pt-BR, …)',
      }),
    ),
  ),
  posted_at: z
    .string()
    .check(
      z.refine(isInstant, { error: 'must be an ISO 8601 date-time with an offset (2025-05-01T09:30:00Z)' }),
    ),
  kind: optional(z.enum(POST_KINDS)),
  media: optional(z.enum(MEDIA_TYPES)),
  likes: optional(count()),
  comments: optional(count()),
  shares: optional(count()),
  views: optional(z.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER))),
  url: optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
  hashtags: optional(z.array(text(200))),
  mentions: optional(z.array(text(200))),
  domains: optional(z.array(text(300))),
});

export type ImportRowInput = z.infer<typeof importRowSchema>;

/** The fields of a row, in the order of the documentation (and of a CSV header written by hand). */
export const IMPORT_FIELDS = Object.keys(importRowSchema.def.shape) as (keyof ImportRowInput)[];
export const REQUIRED_FIELDS = [
  'platform',
  'external_id',
  'author_external_id',
  'author_handle',
  'text',
  'posted_at',
] as const satisfies readonly (keyof ImportRowInput)[];

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 57)}...` : value}"`;
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** A readable reason for one problem: "likes: expected a whole number ≥ 0, got string \"12\"". */
export function describeIssue(issue: $ZodIssue): string {
  const path = issue.path.join('.');
  const at = path ? `${path}: ` : '';
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_type':
      if (input === undefined) return `${at}required`;
      return `${at}expected ${issue.expected === 'int' ? 'a whole number' : issue.expected}, got ${show(input)}`;
    case 'invalid_value':
      return `${at}must be one of ${issue.values.map(String).join(', ')} (got ${show(input)})`;
    case 'too_small':
      return issue.origin === 'string' ? `${at}must not be empty` : `${at}must be ≥ ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `${at}longer than ${String(issue.maximum)} characters`
        : `${at}must be ≤ ${String(issue.maximum)}`;
    case 'invalid_format':
      return `${at}${issue.message.startsWith('Invalid') ? `has an invalid format (got ${show(input)})` : issue.message}`;
    default:
      return `${at}${issue.message}${input === undefined ? '' : ` (got ${show(input)})`}`;
  }
}

export type Validated = { ok: true; row: ImportRowInput } | { ok: false; reasons: string[] };

export function validateRow(value: unknown): Validated {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      reasons: [`expected a JSON object, got ${Array.isArray(value) ? 'an array' : show(value)}`],
    };
  }
  const result = z.safeParse(importRowSchema, value, { reportInput: true });
  if (result.success) return { ok: true, row: result.data };
  return { ok: false, reasons: result.error.issues.map(describeIssue) };
}
