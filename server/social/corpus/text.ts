// What a post's text yields besides its words: hashtags, mentions, linked domains. Stored the way the posts table
// documents them: hashtags and mentions lower case without '#'/'@', domains as registrable host names
// (contract/domains.ts).
import { normaliseDomains } from '@contract/domains';

const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&/#])[#＃]([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*)/gu;
const MENTION =
  /(^|[^\p{L}\p{M}\p{N}_.@/])@([\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.]*[\p{L}\p{M}\p{N}_])?)/gu;
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'）)\]}]+|\bwww\.[^\s<>"'）)\]}]+/giu;

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** Hashtags of a text: lower case, without '#', in order of first appearance. */
export function extractHashtags(text: string): string[] {
  return unique([...text.matchAll(HASHTAG)].map((m) => m[2]!.toLowerCase()));
}

/** Mentioned handles: lower case, without '@' (e-mail addresses are not mentions). */
export function extractMentions(text: string): string[] {
  return unique([...text.matchAll(MENTION)].map((m) => m[2]!.toLowerCase()));
}

function extractUrls(text: string): string[] {
  return [...text.matchAll(URL_PATTERN)].map((m) => m[0].replace(/[.,!?;:…]+$/u, ''));
}

/** Registrable domains linked from a text, in order of first appearance. */
export function extractDomains(text: string): string[] {
  return normaliseDomains(extractUrls(text));
}

/** Hashtags given by a source ("#NovaX", "novax"): lower case without '#'; empty ones dropped. */
export function normaliseTags(values: readonly string[], marker: '#' | '@'): string[] {
  const prefix = marker === '#' ? /^[#＃]+/u : /^@+/;
  return unique(values.map((v) => v.trim().replace(prefix, '').toLowerCase()).filter(Boolean));
}
