// The dashboards' view as the pages work with it: the scope read from the validated address (insight-search.ts), the
// address written back from a scope, the range in instants, and the request body. Apart from insight-search.ts so the
// route tree in the first load carries only the light address check, not the refinements' contract.
import type { InsightsBody } from '@contract/insights';
import { workspaceLanguages } from '@contract/workspaces';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { startOfDayIn } from '@contract/zoned-time';
import { decodeRefines, encodeRefines } from './refine-codec';
import {
  DEFAULT_RANGE,
  PRESET_HOURS,
  type InsightScope,
  type InsightSearchParams,
  type Platform,
  type RangePreset,
} from './insight-search';

export function scopeFromSearch(search: InsightSearchParams): InsightScope {
  const custom = search.range === 'custom';
  return {
    savedQueryId: search.query ?? null,
    q: search.query ? '' : (search.q ?? ''),
    range: (search.range as RangePreset | undefined) ?? DEFAULT_RANGE,
    from: custom ? (search.from ?? null) : null,
    to: custom ? (search.to ?? null) : null,
    end: custom ? null : (search.end ?? null),
    platforms: search.platforms ? (search.platforms.split(',') as Platform[]) : [],
    languages: search.languages ? search.languages.split(',') : [],
    refine: search.refine ? (decodeRefines(search.refine) ?? []) : [],
  };
}

/** The address's params of a scope: defaults and empty lists left out. */
export function searchFromScope(scope: InsightScope): InsightSearchParams {
  const custom = scope.range === 'custom';
  return {
    query: scope.savedQueryId ?? undefined,
    q: scope.savedQueryId ? undefined : scope.q || undefined,
    range: scope.range === DEFAULT_RANGE ? undefined : scope.range,
    from: custom ? (scope.from ?? undefined) : undefined,
    to: custom ? (scope.to ?? undefined) : undefined,
    end: custom ? undefined : (scope.end ?? undefined),
    platforms: PLATFORM_VALUES.filter((p) => scope.platforms.includes(p)).join(',') || undefined,
    languages: workspaceLanguages.filter((l) => scope.languages.includes(l)).join(',') || undefined,
    refine: encodeRefines(scope.refine),
  };
}

// Time ranges. Custom days are days of the workspace's zone; presets are hours back from their end.

const addDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The scope's range as instants: a preset ends at its pinned end or at `now`; custom days in the zone. */
export function resolveRange(
  scope: InsightScope,
  now: number,
  timeZone: string,
): { from: string; to: string } {
  if (scope.range === 'custom' && scope.from && scope.to) {
    return {
      from: startOfDayIn(scope.from, timeZone).toISOString(),
      to: startOfDayIn(addDay(scope.to), timeZone).toISOString(),
    };
  }
  const preset = scope.range === 'custom' ? DEFAULT_RANGE : scope.range;
  const end = scope.end ? Date.parse(scope.end) : now;
  return {
    from: new Date(end - PRESET_HOURS[preset as keyof typeof PRESET_HOURS] * 3_600_000).toISOString(),
    to: new Date(end).toISOString(),
  };
}

/** The request body every dashboard shares. */
export function insightsBody(
  workspaceId: string,
  scope: InsightScope,
  range: { from: string; to: string },
): InsightsBody {
  return {
    workspace_id: workspaceId,
    ...(scope.savedQueryId ? { saved_query_id: scope.savedQueryId } : { query: scope.q }),
    filters: {
      ...range,
      ...(scope.platforms.length ? { platforms: scope.platforms } : {}),
      ...(scope.languages.length ? { languages: scope.languages } : {}),
    },
    ...(scope.refine.length ? { refine: scope.refine } : {}),
  };
}
