// ANALYTICS_URL: the ClickHouse server that holds the analytics store instead of DATA_DIR/analytics (remote.ts). Read
// by the server's configuration (a bad value stops it, naming the key) and by the store, apart from both so that
// neither loads the other's code.

/** Where a store's server is, without its credentials: what logs and errors may say. */
export interface AnalyticsUrl {
  /** The URL without user and password. */
  endpoint: string;
  username: string;
  password: string;
}

/**
 * Reads ANALYTICS_URL: an http or https URL of a ClickHouse server's HTTP interface, optionally with a user and
 * password (percent-encoded) and a path (a proxy in front of it). Throws an error that names what is wrong and never
 * holds the password.
 */
export function parseAnalyticsUrl(raw: string): AnalyticsUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('ANALYTICS_URL is not a URL: expected http(s)://[user[:password]@]host[:port]');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`ANALYTICS_URL must be http or https (ClickHouse's HTTP interface), not ${url.protocol}`);
  if (url.search || url.hash)
    throw new Error('ANALYTICS_URL takes no query or fragment: settings are the server’s or Murmur’s own');
  const decode = (part: string, what: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new Error(`ANALYTICS_URL's ${what} is not percent-encoded correctly`);
    }
  };
  const username = decode(url.username, 'user') || 'default';
  const password = decode(url.password, 'password');
  url.username = '';
  url.password = '';
  return { endpoint: url.toString().replace(/\/$/, ''), username, password };
}
