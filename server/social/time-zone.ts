// The zone discover and the dashboards write their times in: the workspace's.

/** The workspace's IANA zone when the runtime knows it, else UTC (a chart must never fail over a bad setting). */
export function usableTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}
