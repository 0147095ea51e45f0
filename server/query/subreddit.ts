// `subreddit:` (server/query/README.md): a Reddit post's community, read from its permalink
// (https://www.reddit.com/r/<name>/comments/…), and a query's name checked as Reddit names them. One statement of the
// rule for the query side (terms.ts), the tracking matcher (match/post.ts) and the importer's rows; the analytics store
// computes the same from PostgreSQL's posts.url with REDDIT_PERMALINK (server/analytics/rows.ts).

/** A subreddit's name as Reddit allows it: 2 to 21 letters, digits and underscores. */
const NAME = /^[A-Za-z0-9_]{2,21}$/;

/**
 * A Reddit permalink, lower-cased, and its subreddit's name (the one capturing group): https or http, reddit.com or
 * its www., old., new., np. or m. host, then /r/<name> ended by a /, ?, # or the end. Written for both JavaScript and
 * PostgreSQL's regular expressions (advanced, as `regexp_match` reads them), which read it alike.
 */
export const REDDIT_PERMALINK =
  '^https?://(?:(?:www|old|new|np|m)\\.)?reddit\\.com/r/([a-z0-9_]{2,21})(?:[/?#]|$)';
const PERMALINK = new RegExp(REDDIT_PERMALINK);

/** A query's `subreddit:` value as it is compared (lower case, without `r/`), or null when it is no subreddit name. */
export function subredditValue(raw: string): string | null {
  const name = raw.replace(/^\/?r\//i, '');
  return NAME.test(name) ? name.toLowerCase() : null;
}

/** The subreddit of a post (lower case), from its platform and address; null for other platforms or addresses. */
export function subredditOf(platform: string, url: string | null | undefined): string | null {
  if (platform !== 'reddit' || !url) return null;
  return PERMALINK.exec(url.toLowerCase())?.[1] ?? null;
}
