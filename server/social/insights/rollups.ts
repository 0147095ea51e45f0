// Reading the rollups (post_hours, post_days, post_tag_days; migration 0007) instead of the posts, when a dashboard's
// condition reads only what a rollup row keeps: the platform, the language and, for the hourly rollup, the
// wall-clock buckets of a zone whose offset is a whole number of hours. The range's whole UTC hours (or days) are read
// from the rollup and its partial ones at each end from the posts, with the same condition: the figures are exact.
import { sql, type SQL } from 'drizzle-orm';
import type { Refine } from '../../../src/contract/insights';
import { readsOnlyPlatformAndLanguage } from '../query/analysis';
import type { InsightScope } from './request';
import { insightWhere } from './where';
import { offsetMinutes } from './time';

export type Grain = 'hour' | 'day';
const GRAIN_MS: Record<Grain, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * Refinements a rollup of that grain can apply. A date refinement is a wall-clock bucket, which a UTC hour falls in
 * whole when the zone's offset is whole hours (checked separately); a UTC day does not.
 */
const keptRefine = (refine: Refine, grain: Grain) =>
  refine.field === 'platform' || refine.field === 'language' || (grain === 'hour' && refine.field === 'date');

/**
 * Whether the zone's offset from UTC is a whole number of hours over [from, to]: then every wall-clock hour, day
 * and week starts on a UTC hour, and a UTC hour lies in one bucket. Offsets change at most a few times a year and
 * last months, so they are read once a day across the range and at both ends.
 */
export function wholeHourOffsets(timeZone: string, from: Date, to: Date): boolean {
  for (let t = from.getTime(); ; t += GRAIN_MS.day) {
    const at = Math.min(t, to.getTime());
    if (offsetMinutes(new Date(at), timeZone) % 60 !== 0) return false;
    if (at === to.getTime()) return true;
  }
}

export interface RollupSplit {
  /** The whole UTC hours or days of the range, read from the rollup. */
  whole: { from: Date; to: Date };
  /** The partial ones at either end (none, one or two), read from the posts. */
  partial: Array<{ from: Date; to: Date }>;
}

/**
 * How [from, to) splits for a rollup of `grain`, or null when the rollup cannot serve the dashboard: its condition
 * reads more than the rollup keeps, the zone has a non-whole-hour offset (hourly rollup), or the range holds no whole
 * unit.
 */
export function rollupSplit(context: InsightScope, grain: Grain): RollupSplit | null {
  const { scope, refines, timeZone } = context;
  if (!readsOnlyPlatformAndLanguage(scope.query)) return null;
  if (!refines.every((refine) => keptRefine(refine, grain))) return null;
  if (grain === 'hour' && !wholeHourOffsets(timeZone, scope.from, scope.to)) return null;
  const unit = GRAIN_MS[grain];
  const from = scope.from.getTime();
  const to = scope.to.getTime();
  const first = Math.ceil(from / unit) * unit;
  const last = Math.floor(to / unit) * unit;
  if (first >= last) return null;
  const partial = [
    { from, to: first },
    { from: last, to },
  ].filter((range) => range.from < range.to);
  return {
    whole: { from: new Date(first), to: new Date(last) },
    partial: partial.map((range) => ({ from: new Date(range.from), to: new Date(range.to) })),
  };
}

/**
 * The rollup's rows over the whole units and the posts of the partial ones, UNION ALL: `fromRollup` and `fromPosts`
 * give each part's SELECT for a condition on `p` (the rollup or the posts, aliased p, so the scope's conditions read
 * both alike) and must give the same columns.
 */
export function rollupUnion(
  context: InsightScope,
  split: RollupSplit,
  fromRollup: (where: SQL) => SQL,
  fromPosts: (where: SQL) => SQL,
): SQL {
  const parts = [
    fromRollup(insightWhere(context, split.whole.from, split.whole.to)),
    ...split.partial.map((range) => fromPosts(insightWhere(context, range.from, range.to))),
  ];
  return sql.join(
    parts.map((part) => sql`(${part})`),
    sql` UNION ALL `,
  );
}
