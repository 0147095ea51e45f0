// Compare's `counted` sentence (compare.ts), in either mode: what was put side by side (the saved queries, or the tags
// named "Category › Tag" within one saved query), over which posts, and how each figure is counted.
import type { Bucket } from '@contract/insights';
import { formatLocal } from '../counted';
import { SENTIMENT_COUNTED } from './counted';
import { describeRefines } from './refine';
import type { InsightScope } from './request';

/** One column of Compare resolved: its scope (with its tag as the last refinement in tags mode). */
export interface ComparedScope extends InsightScope {
  /** Its saved query; null for every post (tags mode without a saved query). */
  savedQueryId: string | null;
  /** Tags mode: the column's tag ("Category › Tag" its name). */
  tag?: { id: string; name: string };
}

/** The sentence for the resolved columns (all sharing their range and zone), buckets of `bucket`. */
export function comparedCounted(contexts: readonly ComparedScope[], bucket: Bucket): string {
  const { timeZone, scope, refines, tagNames, savedQueryId, savedQueryName } = contexts[0]!;
  const tags = contexts.flatMap((context) => (context.tag ? [context.tag] : []));
  const days = (scope.to.getTime() - scope.from.getTime()) / 86_400_000;
  const period = `against the previous period of the ${days % 1 === 0 ? `${days} days` : 'same length of time'} just before`;
  const range =
    `posted from ${formatLocal(scope.from, timeZone)} (inclusive) to ${formatLocal(scope.to, timeZone)} ` +
    `(exclusive), ${timeZone}`;
  const buckets = `Buckets are ${bucket}s of ${timeZone} wall-clock time.`;
  // In tags mode the last refinement of each column is its tag: the body's own are the ones before it.
  const shared = tags.length ? refines.slice(0, -1) : refines;
  if (!tags.length) {
    const refined = shared.length
      ? ` Every query is refined to ${describeRefines(shared, timeZone, tagNames)}, the overlap too.`
      : '';
    return (
      `${contexts.length} saved queries compared over the posts ${range}. Each query is counted as its own ` +
      `overview counts it (its text, platforms and languages, the filters given overriding its own key by key; ` +
      `each post once, whatever its kind): its mentions are its matching posts, ${period}. Share of voice = a ` +
      `query's mentions ÷ the sum of every compared query's mentions (a post matching several queries counts in ` +
      `each). Overlap = the posts of the range matching two or more of the queries, and per pair the posts ` +
      `matching both. ${buckets}${refined} ${SENTIMENT_COUNTED}`
    );
  }
  const refined = shared.length
    ? ` Every tag's posts are refined to ${describeRefines(shared, timeZone, tagNames)}, the overlap too.`
    : '';
  const named = `${tags.length} tags compared (${tags.map((tag) => `"${tag.name}"`).join(', ')})`;
  const counted =
    savedQueryId === null
      ? `${named} over every post of the workspace ${range}. Each tag is counted as the overview of every post ` +
        `counts it with that tag as a refinement (the filters given; each post once, whatever its kind): its ` +
        `mentions are the posts carrying the tag`
      : `${named} within the saved query "${savedQueryName ?? ''}", over its posts ${range}. Each tag is counted ` +
        `as the saved query's overview counts it with that tag as a refinement (its text, platforms and languages, ` +
        `the filters given overriding its own key by key; each post once, whatever its kind): its mentions are the ` +
        `saved query's posts carrying the tag`;
  return (
    `${counted}, ${period}. Share of voice = a tag's mentions ÷ the sum of every compared tag's mentions (a post carrying ` +
    `several of the tags counts in each). Overlap = the posts of the range carrying two or more of the tags, and ` +
    `per pair the posts carrying both. ${buckets}${refined} ${SENTIMENT_COUNTED}`
  );
}
