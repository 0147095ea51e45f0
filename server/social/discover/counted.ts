// What discover counted, in one sentence (users compare volumes across tools: say exactly what is in and out), written
// in the workspace's time zone.
import type { DiscoverSort } from '@contract/discover';
import { formatLocal, platformsAndLanguages } from '../counted';
import type { Scope } from '../scope';

export function countedSentence(scope: Scope, normalizedQuery: string, sort: DiscoverSort, timeZone: string) {
  const order = sort === 'recency' ? 'newest first' : 'most engagement first';
  return (
    `Posts published from ${formatLocal(scope.from, timeZone)} (inclusive) to ${formatLocal(scope.to, timeZone)} ` +
    `(exclusive), ${timeZone}, ${platformsAndLanguages(scope)}, that match ${JSON.stringify(normalizedQuery)}: each ` +
    `post once, whatever its kind (original, reply, repost or quote), ${order}, with engagement as likes + comments + ` +
    `shares and each profile's count as its matching posts in that range.`
  );
}
