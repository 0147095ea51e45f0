// The beginning of every dashboard's "counted" sentence: what was counted (query, range in the workspace's zone,
// platforms, languages, refinements); each dashboard adds its own definitions.
import { formatLocal, platformsAndLanguages } from '../counted';
import { countedCorrections } from '../corrections';
import { describeRefines } from './refine';
import type { InsightScope } from './request';

/** "Posts matching … posted from … to … (zone), on …, in …, refined to …; every kind of post included" */
export function countedBase(context: InsightScope, from = context.scope.from, to = context.scope.to): string {
  const { scope, timeZone, normalized, savedQueryName } = context;
  const what =
    normalized === null
      ? 'All posts'
      : `Posts matching ${savedQueryName ? `the saved query "${savedQueryName}" (${normalized})` : JSON.stringify(normalized)}`;
  const refined = context.refines.length
    ? `, refined to ${describeRefines(context.refines, timeZone, context.tagNames)}`
    : '';
  return (
    `${what} posted from ${formatLocal(from, timeZone)} (inclusive) to ${formatLocal(to, timeZone)} (exclusive), ` +
    `${timeZone}, ${platformsAndLanguages(scope)}${refined}; each post once, whatever its kind (original, reply, ` +
    `repost or quote)${countedCorrections(context.corrections)}`
  );
}

/**
 * How the sentiment split and its averages count (issue 53 item 4; docs/sentiment.md, "Not rated"): said by every
 * answer that carries the split.
 */
export const SENTIMENT_COUNTED =
  'Sentiment: positive, neutral and negative and the average sentiment count rated posts only; a post with too ' +
  'little text to rate is counted apart as not rated.';
