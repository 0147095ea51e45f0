// The zone discover and the dashboards write their times in: the workspace's.

/**
 * The verdict for each zone name seen: checking one makes an Intl.DateTimeFormat, which costs more than a dashboard
 * answered from the cache does otherwise. Names come from workspaces' settings, so there are few; past the bound,
 * a new name is checked each time.
 */
const verdicts = new Map<string, string>();
const KEPT_VERDICTS = 1000;

/** The workspace's IANA zone when the runtime knows it, else UTC (a chart must never fail over a bad setting). */
export function usableTimeZone(timeZone: string): string {
  const known = verdicts.get(timeZone);
  if (known !== undefined) return known;
  let usable = 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    usable = timeZone;
  } catch {
    // Not a zone this runtime knows: UTC.
  }
  if (verdicts.size < KEPT_VERDICTS) verdicts.set(timeZone, usable);
  return usable;
}
