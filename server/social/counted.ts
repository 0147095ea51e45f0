// The words the "counted" sentences of discover and the dashboards share: a list in prose, the platforms and
// languages searched, and an instant in the workspace's zone.
import type { Scope } from './scope';

/** "a", "a and b", "a, b and c". */
const list = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** "on x and tiktok, in any language" */
export const platformsAndLanguages = (scope: Pick<Scope, 'platforms' | 'languages'>) =>
  [
    scope.platforms.length ? `on ${list(scope.platforms)}` : 'on every platform',
    scope.languages.length ? `in ${list(scope.languages)}` : 'in any language',
  ].join(', ');

const formatters = new Map<string, Intl.DateTimeFormat>();

/** "1 Mar 2026, 09:00": the instant's wall-clock time in the zone. */
export function formatLocal(date: Date, timeZone: string): string {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' });
    formatters.set(timeZone, format);
  }
  return format.format(date);
}
