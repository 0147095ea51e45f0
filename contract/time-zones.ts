// The IANA time zones a workspace can count its days and hours in: the ones the runtime's Intl lists
// (Intl.supportedValuesOf('timeZone'), with UTC, which the list leaves out) and the IANA names Intl takes as aliases
// of a listed one: ICU still lists some zones under their old names (Asia/Calcutta, Europe/Kiev) while browsers
// and people use the current ones (Asia/Kolkata, Europe/Kyiv). The server checks the spelling against PostgreSQL's
// own list as well (server/workspaces/time-zone.ts), since the dashboards count in PostgreSQL.
import * as z from 'zod/mini';

/** Longer than any IANA name (the longest is 32 characters). */
const TIME_ZONE_MAX = 64;

let listed: readonly string[] | null = null;

/** The listed zones, UTC first, then as Intl orders them (alphabetically). */
export function listedTimeZones(): readonly string[] {
  listed ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  return listed;
}

let listedSet: ReadonlySet<string> | null = null;

/** Intl's own name for the zone, or null when Intl does not know it. */
function resolvedTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Whether `name` is a listed zone, or another name Intl resolves to one (an alias). Intl resolves names whatever
 * their case, so a name that differs from its resolved one only in case (asia/tokyo) is refused: it is not a name.
 */
function isListedTimeZone(name: string): boolean {
  listedSet ??= new Set(listedTimeZones());
  if (listedSet.has(name)) return true;
  const resolved = resolvedTimeZone(name);
  return resolved !== null && listedSet.has(resolved) && resolved.toLowerCase() !== name.toLowerCase();
}

/** One message whatever is wrong with the name: a person picks zones from a list, never types one from scratch. */
export const timeZoneSchema = z.string().check(
  z.refine((name) => name.length <= TIME_ZONE_MAX && isListedTimeZone(name), {
    error: 'Choose a time zone from the list',
  }),
);
