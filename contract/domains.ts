// Linked sites as the corpus stores them and the query language's `site:` compares them: registrable domains
// (news.bbc.co.uk → bbc.co.uk), lower case. Shared by the importer (server/social/corpus/text.ts) and the query
// language (server/query/terms.ts).

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

/** Domains or URLs given by a source, reduced to registrable domains; unusable values are dropped. */
export function normaliseDomains(values: readonly string[]): string[] {
  const domains: string[] = [];
  for (const value of values) {
    const host = hostOf(value.trim());
    const domain = host ? registrableDomain(host) : undefined;
    if (domain) domains.push(domain);
  }
  return [...new Set(domains)];
}
