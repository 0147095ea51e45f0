// Who may change saved queries, where the workspace stands against its plan's limit, the next free copy name, and
// how authors and times read. Mirrors the server (server/saved-queries/routes.ts) so the page only offers what it will
// accept; the server stays the judge, and its refusals are still shown.
import type { SavedQuery } from '@contract/saved-queries';
import type { MemberResponse, Privilege } from '@contract/workspaces';

/** Spec §6: viewers cannot edit or delete filters; owners and managers write saved queries. */
export const canEditSavedQueries = (privilege: Privilege) => privilege === 'owner' || privilege === 'manager';

export const VIEWER_REASON = 'Only owners and managers can change saved queries.';

/** The share of the limit from which the page warns. */
const WARN_FROM = 0.8;

export type UsageLevel = 'ok' | 'warning' | 'full';

export function usageLevel({ count, limit }: { count: number; limit: number | null }): UsageLevel {
  if (limit === null) return 'ok';
  if (count >= limit) return 'full';
  return count >= Math.ceil(limit * WARN_FROM) ? 'warning' : 'ok';
}

export const usageText = ({ count, limit }: { count: number; limit: number | null }) =>
  limit === null
    ? `${count} saved ${count === 1 ? 'query' : 'queries'}`
    : `${count} of ${limit} saved ${limit === 1 ? 'query' : 'queries'}`;

export const limitReason = (limit: number) =>
  `Your plan allows ${limit} saved ${limit === 1 ? 'query' : 'queries'}. Delete one to add another.`;

const NAME_MAX = 100;

/** "Name (copy)", then "Name (copy 2)", … : the first that no saved query has, whatever its case. */
export function copyName(name: string, taken: readonly string[]): string {
  const names = new Set(taken.map((n) => n.toLowerCase()));
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? ' (copy)' : ` (copy ${n})`;
    const candidate = `${name.slice(0, NAME_MAX - suffix.length).trimEnd()}${suffix}`;
    if (!names.has(candidate.toLowerCase())) return candidate;
  }
}

/** The author as the members list names them; the API keeps no name for a deleted account or a former member. */
export function authorName(query: SavedQuery, members: readonly MemberResponse[]): string {
  if (query.created_by === null) return 'Deleted account';
  const member = members.find((m) => m.user_id === query.created_by);
  if (!member) return 'Former member';
  return [member.first_name, member.last_name].filter(Boolean).join(' ').trim() || member.email;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "3 hours ago", "yesterday", "just now". */
export function relativeTime(unixSeconds: number, now = Date.now()): string {
  const seconds = unixSeconds - Math.round(now / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}
