// From a validated row to what is stored: CSV strings coerced to the row's types, tags and domains normalised (or
// derived from the text), the language reduced to its primary subtag (or inferred from the script), sentiment scored.
import type { SentimentLabel } from '../sentiment';
import { scoreSentiment, sentimentModelVersion } from '../sentiment-model';
import { sentimentRated } from '../sentiment-explain';
import { normaliseDomains } from '@contract/domains';
import { extractDomains, extractHashtags, extractMentions, normaliseTags } from '../text';
import { parseInstant, type ImportRowInput } from './schema';

const NUMBER_FIELDS = new Set([
  'author_followers',
  'author_following',
  'likes',
  'comments',
  'shares',
  'views',
]);
const BOOLEAN_FIELDS = new Set(['author_verified']);
const ARRAY_FIELDS = new Set(['hashtags', 'mentions', 'domains']);
const TRUE = new Set(['true', 't', '1', 'yes', 'y']);
const FALSE = new Set(['false', 'f', '0', 'no', 'n']);

/**
 * A CSV record (all strings) as the values a JSON row would hold: empty cells are absent (but an empty `text`, which
 * a CSV file must have as a column, is the empty text of a repost without comment), whole numbers become numbers,
 * true/false/1/0/yes/no booleans, and tag lists split on spaces or commas. Anything else stays a string, so
 * validation names the cell ("likes: expected number, got \"lots\"").
 */
export function coerceCsvRecord(record: Record<string, string | undefined>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(record)) {
    if (raw === undefined) continue;
    const value = raw.trim();
    if (value === '' && key !== 'text') continue;
    if (NUMBER_FIELDS.has(key)) row[key] = /^\d+$/.test(value) ? Number(value) : value;
    else if (BOOLEAN_FIELDS.has(key)) {
      const lower = value.toLowerCase();
      row[key] = TRUE.has(lower) ? true : FALSE.has(lower) ? false : value;
    } else if (ARRAY_FIELDS.has(key)) row[key] = value.split(/[\s,]+/).filter(Boolean);
    else row[key] = key === 'text' || key === 'author_bio' ? raw : value;
  }
  return row;
}

export interface ImportRow {
  /** Line of the file where the row starts. */
  line: number;
  platform: ImportRowInput['platform'];
  externalId: string;
  author: {
    externalId: string;
    handle: string;
    displayName?: string;
    followers?: number;
    following?: number;
    verified?: boolean;
    bio?: string;
    country?: string;
    language?: string;
    avatarUrl?: string;
  };
  text: string;
  language: string | null;
  /** ISO 8601 in UTC. */
  postedAt: string;
  kind?: string;
  media?: string;
  likes?: number;
  comments?: number;
  shares?: number;
  views?: number;
  url?: string;
  hashtags: string[];
  mentions: string[];
  domains: string[];
  sentiment: number;
  sentimentLabel: SentimentLabel;
  /** The scorer's version (sentimentModelVersion()). */
  sentimentModel: string;
  /** Whether the text gave enough to rate (sentimentRated()): false is "not rated". */
  sentimentRated: boolean;
}

const primary = (tag: string) => tag.split(/[-_]/)[0]!.toLowerCase();
const KANA = /[\u3040-\u30ff]/u;
const HANGUL = /[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/u;

/** The post's language: as given, else from its script (kana → ja, hangul → ko), else its author's; or unknown. */
function postLanguage(text: string, given?: string | null, author?: string | null): string | null {
  if (given) return primary(given);
  if (KANA.test(text)) return 'ja';
  if (HANGUL.test(text)) return 'ko';
  return author ? primary(author) : null;
}

const defined = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

export function normaliseRow(input: ImportRowInput, line: number): ImportRow {
  const authorLanguage = input.author_language ? primary(input.author_language) : undefined;
  const language = postLanguage(input.text, input.language, authorLanguage);
  const sentiment = scoreSentiment(input.text, language);
  return {
    line,
    platform: input.platform,
    externalId: input.external_id.trim(),
    author: {
      externalId: input.author_external_id.trim(),
      handle: input.author_handle.trim().replace(/^@+/, ''),
      displayName: defined(input.author_display_name),
      followers: defined(input.author_followers),
      following: defined(input.author_following),
      verified: defined(input.author_verified),
      bio: defined(input.author_bio),
      country: input.author_country ? input.author_country.toUpperCase() : undefined,
      language: authorLanguage,
      avatarUrl: defined(input.author_avatar_url),
    },
    text: input.text,
    language,
    postedAt: new Date(parseInstant(input.posted_at)!).toISOString(),
    kind: defined(input.kind),
    media: defined(input.media),
    likes: defined(input.likes),
    comments: defined(input.comments),
    shares: defined(input.shares),
    views: defined(input.views),
    url: defined(input.url),
    hashtags: input.hashtags ? normaliseTags(input.hashtags, '#') : extractHashtags(input.text),
    mentions: input.mentions ? normaliseTags(input.mentions, '@') : extractMentions(input.text),
    domains: input.domains ? normaliseDomains(input.domains) : extractDomains(input.text),
    sentiment: sentiment.sentiment,
    sentimentLabel: sentiment.label,
    sentimentModel: sentimentModelVersion(),
    sentimentRated: sentimentRated(sentiment.tokens, sentiment.label),
  };
}
