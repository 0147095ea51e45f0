// What a post's text yields besides its words: hashtags, mentions, linked domains. Stored the way the posts table
// documents them: hashtags and mentions lower case without '#'/'@', domains as registrable host names.

const HASHTAG = /(^|[^\p{L}\p{M}\p{N}_&/#])[#＃]([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*)/gu;
const MENTION =
  /(^|[^\p{L}\p{M}\p{N}_.@/])@([\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_.]*[\p{L}\p{M}\p{N}_])?)/gu;
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'）)\]}]+|\bwww\.[^\s<>"'）)\]}]+/giu;

/**
 * Second-level labels under which registrations happen (bbc.co.uk, yahoo.co.jp): a compact stand-in for the Public
 * Suffix List covering the common country-code patterns. Any other host keeps its last two labels.
 */
const SECOND_LEVEL = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'or',
  'ne',
  'go',
  'gob',
  'nom',
  'mil',
]);
const COUNTRY_TLD = /^[a-z]{2}$/;
/** Whole suffixes that are not "<second-level>.<cc>" but still hold registrations. */
const MULTI_LABEL_SUFFIXES = new Set([
  'github.io',
  'blogspot.com',
  'herokuapp.com',
  'vercel.app',
  'netlify.app',
]);

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

/** The host name of a URL (with or without scheme), lower case; undefined when it has none. */
function hostOf(url: string): string | undefined {
  const parsed = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`);
  const host = parsed?.hostname.toLowerCase().replace(/\.$/, '');
  return host && host.includes('.') ? host : undefined;
}

/** The registrable domain of a host name: news.bbc.co.uk → bbc.co.uk, m.youtube.com → youtube.com. */
export function registrableDomain(host: string): string | undefined {
  const clean = host.toLowerCase().replace(/\.$/, '');
  if (!clean || /^\d+(\.\d+){3}$/.test(clean) || clean.includes(':')) return clean || undefined;
  const labels = clean.split('.').filter(Boolean);
  if (labels.length < 2) return undefined;
  const lastTwo = labels.slice(-2).join('.');
  const take =
    MULTI_LABEL_SUFFIXES.has(lastTwo) ||
    (COUNTRY_TLD.test(labels.at(-1)!) && SECOND_LEVEL.has(labels.at(-2)!))
      ? 3
      : 2;
  return labels.length >= take ? labels.slice(-take).join('.') : undefined;
}

/** Registrable domains linked from a text, in order of first appearance. */
export function extractDomains(text: string): string[] {
  return normaliseDomains(extractUrls(text));
}

/** Domains or URLs given by a source, reduced to registrable domains; unusable values are dropped. */
export function normaliseDomains(values: readonly string[]): string[] {
  const domains: string[] = [];
  for (const value of values) {
    const host = hostOf(value.trim());
    const domain = host ? registrableDomain(host) : undefined;
    if (domain) domains.push(domain);
  }
  return unique(domains);
}

/** Hashtags given by a source ("#NovaX", "novax"): lower case without '#'; empty ones dropped. */
export function normaliseTags(values: readonly string[], marker: '#' | '@'): string[] {
  const prefix = marker === '#' ? /^[#＃]+/u : /^@+/;
  return unique(values.map((v) => v.trim().replace(prefix, '').toLowerCase()).filter(Boolean));
}
