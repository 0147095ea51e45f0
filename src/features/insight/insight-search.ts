// The dashboards' view as the address holds it, so a copied link reproduces it and back/forward restore earlier views:
//   ?query=<saved query id> | ?q=<ad-hoc query>   the scope (a saved query, or discover's query)
//   &range=7d | range=custom&from=2026-11-01&to=2026-11-07   presets end now; custom days are the workspace's
//   &end=<ISO instant>                            pins the end of a preset (a paged list, a copied link to this view)
//   &platforms=x,reddit&languages=en              filters (none: the saved query's own, or all)
//   &refine=…                                     drill-down refinements (refine-codec.ts)
//   &sort=…&cursor=…                              the lists' sort and keyset page (each page route checks its own)
//   &why=<ISO> | why=<ISO>/<ISO>                  the overview's bucket or range explained (SpikeDrivers.tsx: whyOf)
//   &category=<id>                                the overview's "By category" card's category (CategoryBreakdown.tsx)
// Every value is a string (src/lib/search-params.ts). A value that is not valid is dropped and remembered
// (takeDroppedParams), so the page can say the link was partly not understood; defaults are left out of the address. This file is the route's
// light check (it is in the first load); the scope and ranges the pages compute are in insight-scope.ts.
import * as z from 'zod/mini';
import { PLATFORM_VALUES, MAX_RANGE_DAYS } from '@contract/social-scope';
import type { Refine } from '@contract/insights';
import { workspaceLanguages } from '@contract/workspaces';

export const RANGE_PRESETS = ['24h', '7d', '30d', '90d', 'custom'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export const PRESET_HOURS = { '24h': 24, '7d': 7 * 24, '30d': 30 * 24, '90d': 90 * 24 } as const;
export const RANGE_LABELS: Record<RangePreset, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  custom: 'Custom dates',
};
export const DEFAULT_RANGE: RangePreset = '30d';
export type Platform = (typeof PLATFORM_VALUES)[number];

/** The scope and filters shared by every dashboard (the insight layout's search). */
export interface InsightScope {
  /** A saved query's id, or null for the ad-hoc `q` (blank: every post). */
  savedQueryId: string | null;
  q: string;
  range: RangePreset;
  /** Custom range: days (YYYY-MM-DD) of the workspace's zone, both included. */
  from: string | null;
  to: string | null;
  /** A preset's pinned end (ISO instant), or null for "now". */
  end: string | null;
  platforms: Platform[];
  languages: string[];
  refine: Refine[];
}

export type InsightSearchParams = Partial<
  Record<'query' | 'q' | 'range' | 'from' | 'to' | 'end' | 'platforms' | 'languages' | 'refine', string>
>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const validDay = (text: string) => DAY.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`));
const isoInstant = z.iso.datetime({ offset: true });

const listOf = (allowed: readonly string[], text: string): string[] | null => {
  const given = text.split(',');
  return given.every((value) => allowed.includes(value)) ? allowed.filter((v) => given.includes(v)) : null;
};

/**
 * The router's validateSearch for the insight layout: each known param kept when valid, dropped (and remembered for
 * takeDroppedParams) when not. Never throws: a bad link shows the default view with a notice, not an error screen.
 */
export function validateInsightSearch(raw: Record<string, unknown>): InsightSearchParams {
  // Every key is present, undefined when absent or dropped: the router lays a route's result over the raw params
  // (the root route's), so a key left out would keep its raw, unchecked value.
  const out: InsightSearchParams = {
    query: undefined,
    q: undefined,
    range: undefined,
    from: undefined,
    to: undefined,
    end: undefined,
    platforms: undefined,
    languages: undefined,
    refine: undefined,
  };
  const invalid: string[] = [];
  const take = (key: keyof InsightSearchParams, ok: (text: string) => string | null) => {
    const value = raw[key];
    if (value === undefined) return;
    const kept = typeof value === 'string' ? ok(value) : null;
    if (kept === null) invalid.push(key);
    else out[key] = kept;
  };
  take('query', (text) => (z.safeParse(z.uuid(), text).success ? text : null));
  take('q', (text) => (text.length <= 10_000 ? text : null));
  take('range', (text) => ((RANGE_PRESETS as readonly string[]).includes(text) ? text : null));
  take('from', (text) => (validDay(text) ? text : null));
  take('to', (text) => (validDay(text) ? text : null));
  take('end', (text) => (z.safeParse(isoInstant, text).success ? new Date(text).toISOString() : null));
  take('platforms', (text) => listOf(PLATFORM_VALUES, text)?.join(',') || null);
  take('languages', (text) => listOf(workspaceLanguages, text)?.join(',') || null);
  // Refinements are checked against the contract by the dashboards themselves (insight-scope.ts, in their chunk);
  // one that is not valid is dropped there with the same notice.
  take('refine', (text) => (text.length > 0 && text.length <= 4000 ? text : null));
  // A custom range needs both days, in order and within the longest range.
  if (out.range === 'custom') {
    const days = out.from && out.to ? (Date.parse(out.to) - Date.parse(out.from)) / 86_400_000 : -1;
    if (days < 0 || days + 1 > MAX_RANGE_DAYS) {
      invalid.push('range');
      out.range = out.from = out.to = undefined;
    }
  } else {
    out.from = out.to = undefined;
  }
  if (invalid.length) dropped = [...new Set([...dropped, ...invalid])];
  return out;
}

/**
 * The params the last validations dropped, taken once by the page that says so. The router validates an address more
 * than once and writes the cleaned one back before the page draws, so the page cannot learn it from the address.
 */
let dropped: string[] = [];
export function takeDroppedParams(): string[] {
  const taken = dropped;
  dropped = [];
  return taken;
}
