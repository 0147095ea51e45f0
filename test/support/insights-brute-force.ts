// Brute force in TypeScript over every row of the test corpus: what each dashboard should answer, computed without
// SQL (wall-clock buckets through Intl, sorting with the documented tie-breaks).
import type { Row } from './insights.fixtures';
import { STOP_WORDS } from '@server/social/insights/words';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of an instant in the zone: [year, month, day, hour, minute, weekday (1 = Monday)]. */
export function wall(at: number, zone: string) {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formats.set(zone, format);
  }
  const p = Object.fromEntries(format.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(p.weekday!) + 1;
  return { y: +p.year!, mo: +p.month!, d: +p.day!, h: +p.hour!, mi: +p.minute!, weekday };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The bucket of an instant as its wall-clock start, "YYYY-MM-DDTHH:00:00" (weeks start on Monday). */
export function bucketKey(at: number, zone: string, bucket: 'hour' | 'day' | 'week'): string {
  const w = wall(at, zone);
  let { y, mo, d } = w;
  if (bucket === 'week') {
    const monday = new Date(Date.UTC(y, mo - 1, d) - (w.weekday - 1) * DAY);
    [y, mo, d] = [monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate()];
  }
  return `${y}-${pad(mo)}-${pad(d)}T${bucket === 'hour' ? pad(w.h) : '00'}:00:00`;
}

/** Every bucket the range touches, in order (stepping every 15 minutes finds each wall-clock hour that exists). */
export function bucketKeys(
  from: number,
  to: number,
  zone: string,
  bucket: 'hour' | 'day' | 'week',
): string[] {
  const keys = new Set<string>();
  for (let at = from; at < to; at += 15 * 60_000) keys.add(bucketKey(at, zone, bucket));
  keys.add(bucketKey(to - 1, zone, bucket));
  return [...keys].sort();
}

/** Code-point order, as COLLATE "C" compares UTF-8 bytes. */
export const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export interface Scope {
  ids: Set<number>;
  from: number;
  to: number;
  platforms?: string[];
  languages?: string[];
  refine?: (row: Row) => boolean;
}

export const inScope =
  (scope: Scope, from = scope.from, to = scope.to) =>
  (row: Row) =>
    scope.ids.has(row.id) &&
    row.at >= from &&
    row.at < to &&
    (!scope.platforms?.length || scope.platforms.includes(row.platform)) &&
    (!scope.languages?.length || (row.language !== null && scope.languages.includes(row.language))) &&
    (!scope.refine || scope.refine(row));

export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export function perAuthor(rows: Row[]) {
  const map = new Map<number, { id: number; followers: number; mentions: number; engagement: number }>();
  for (const row of rows) {
    const entry = map.get(row.authorId) ?? {
      id: row.authorId,
      followers: row.followers,
      mentions: 0,
      engagement: 0,
    };
    entry.mentions += 1;
    entry.engagement += row.engagement;
    map.set(row.authorId, entry);
  }
  return [...map.values()];
}

type Person = ReturnType<typeof perAuthor>[number];
export const PERSON_ORDER = {
  mentions: (a: Person, b: Person) => b.mentions - a.mentions || b.engagement - a.engagement || a.id - b.id,
  followers: (a: Person, b: Person) => b.followers - a.followers || b.mentions - a.mentions || a.id - b.id,
  engagement: (a: Person, b: Person) => b.engagement - a.engagement || b.mentions - a.mentions || a.id - b.id,
};

export const byEngagement = (a: Row, b: Row) => b.engagement - a.engagement || b.id - a.id;
export const byRecency = (a: Row, b: Row) => b.at - a.at || b.id - a.id;

/** engagement × n ÷ sum over the author's posts in the scope (without refinements); 1 for a single post or all 0. */
export function overperformance(scoped: Row[]) {
  const authors = new Map(perAuthor(scoped).map((a) => [a.id, a]));
  return (row: Row) => {
    const a = authors.get(row.authorId)!;
    return a.mentions === 1 || a.engagement === 0 ? 1 : (row.engagement * a.mentions) / a.engagement;
  };
}

export const changePct = (value: number, previous: number) =>
  previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10;

/** Distinct elements per post, counted over posts: most first, then code-point order. */
export function topCounts(rows: Row[], pick: (row: Row) => string[], limit: number) {
  const counts = new Map<string, number>();
  for (const row of rows) for (const v of new Set(pick(row))) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .map(([value, posts]) => ({ value, posts }))
    .sort((a, b) => b.posts - a.posts || byCodePoint(a.value, b.value))
    .slice(0, limit);
}

const STOP = new Map(Object.entries(STOP_WORDS).map(([language, words]) => [language, new Set(words)]));
const isStopWord = (word: string, language: string | null) =>
  language === null
    ? [...STOP.values()].some((words) => words.has(word))
    : (STOP.get(language)?.has(word) ?? false);
/** The documented word rule, written again here. */
function keptWord(word: string, language: string | null): boolean {
  if (/[/.@]/.test(word)) return false;
  const codes = [...word].map((char) => char.codePointAt(0)!);
  if (!/[A-Za-z]/.test(word) && !codes.some((code) => code > 0x7f)) return false;
  const beyondLatin = codes.some((code) => code > 0x24f);
  if ([...word].length < (beyondLatin ? 2 : 3)) return false;
  return !isStopWord(word, language);
}

export function wordStats(current: Row[], previous: Row[]) {
  const stats = new Map<string, { n: number; prev: number; s: number }>();
  const entry = (w: string) => stats.get(w) ?? stats.set(w, { n: 0, prev: 0, s: 0 }).get(w)!;
  for (const row of current) {
    for (const w of new Set(row.words)) {
      if (!keptWord(w, row.language)) continue;
      const e = entry(w);
      e.n += 1;
      e.s += row.sentiment;
    }
  }
  for (const row of previous) {
    for (const w of new Set(row.words)) if (keptWord(w, row.language)) entry(w).prev += 1;
  }
  return [...stats].map(([value, e]) => ({ value, ...e })).filter((e) => e.n > 0);
}
