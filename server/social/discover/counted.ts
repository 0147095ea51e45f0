// What discover counted, in one sentence (users compare volumes across tools: say exactly what is in and out), and
// the workspace's time zone it is written in.
import type { DiscoverSort } from '../../../src/contract/discover';
import type { Scope } from '../scope';

/** The workspace's IANA zone when the runtime knows it, else UTC (a chart must never fail over a bad setting). */
export function usableTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

const list = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

export function countedSentence(scope: Scope, normalizedQuery: string, sort: DiscoverSort, timeZone: string) {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  const where = [
    scope.platforms.length ? `on ${list(scope.platforms)}` : 'on every platform',
    scope.languages.length ? `in ${list(scope.languages)}` : 'in any language',
  ].join(', ');
  const order = sort === 'recency' ? 'newest first' : 'most engagement first';
  return (
    `Posts published from ${format.format(scope.from)} (inclusive) to ${format.format(scope.to)} (exclusive), ` +
    `${timeZone}, ${where}, that match ${JSON.stringify(normalizedQuery)}: each post once, whatever its kind ` +
    `(original, reply, repost or quote), ${order}, with engagement as likes + comments + shares and each ` +
    `profile's count as its matching posts in that range.`
  );
}
