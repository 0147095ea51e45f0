// "Why this spike" in plain TypeScript over the reference's posts: for a window and its baseline's windows (for a
// window of at most 24 hours on the zone's clock, the same wall-clock hours of each of the 7 days before, each end the
// first instant reading it that day, the earlier when the clocks go back, the jump when they skip it; else the range
// of equal length just before), each value of each dimension with its posts in the window and in the baseline, the
// over-represented ones with at least `minPosts` posts in the window, ranked by Dunning's G² (highest first, then most
// posts, then the dimension's order, then the value in code-point order). Words are the conversation's
// (server/social/insights/words.ts's rule): the post's words once each, its language's stop words left out (every
// language's for an unknown one), a word kept when it has a letter and 3 characters (2 beyond Latin). The corpora's
// texts hold no links, so no link is taken out here.
import { DRIVER_KINDS, type DriverKind } from '@contract/insights-drivers';
import { formatWallClock, instantOfWallClock, wallClock } from '@contract/zoned-time';
import { STOP_WORDS } from '@server/social/insights/words';
import { scoped, type RefScope } from './figures';
import type { RefPost } from './query';
import { tokens } from './tokens';

const KINDS = DRIVER_KINDS;
type Kind = DriverKind;

const ALL_STOP = new Set(Object.values(STOP_WORDS).flat());
const stopOf = (language: string | null) =>
  language === null ? ALL_STOP : new Set(STOP_WORDS[language] ?? []);

function kept(word: string): boolean {
  const points = [...word].map((c) => c.codePointAt(0)!);
  if (!/[A-Za-z]/.test(word) && !points.some((p) => p > 0x7f)) return false;
  return points.length >= (points.some((p) => p > 0x24f) ? 2 : 3);
}

/** Each value of a post, once, as `kind` and value. */
function valuesOf(post: RefPost, scope: RefScope): Array<[Kind, string]> {
  const stop = stopOf(post.language);
  const words = new Set(tokens(post.text).map((t) => t.word));
  // Not rated apart, as the overview's split counts it (a corrected post is rated).
  const label = scope.corrections.get(post.id) ?? (post.rated ? post.label : 'not_rated');
  return [
    ...[...words].filter((w) => !stop.has(w) && kept(w)).map((w) => ['term', w] as [Kind, string]),
    ...[...new Set(post.hashtags)].map((v) => ['hashtag', v] as [Kind, string]),
    ...[...new Set(post.mentions)].map((v) => ['mention', v] as [Kind, string]),
    ...[...new Set(post.domains)].map((v) => ['domain', v] as [Kind, string]),
    ['author', String(post.authorId)],
    ['platform', post.platform],
    ...(post.language === null ? [] : [['language', post.language] as [Kind, string]]),
    ['sentiment', label],
  ];
}

const g2 = (a: number, b: number, nw: number, nb: number) => {
  const n = nw + nb;
  const term = (o: number, e: number) => (o === 0 ? 0 : o * Math.log(o / e));
  return (
    2 *
    (term(a, (nw * (a + b)) / n) +
      term(nw - a, (nw * (n - a - b)) / n) +
      term(b, (nb * (a + b)) / n) +
      term(nb - b, (nb * (n - a - b)) / n))
  );
};

const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const BASELINE_DAYS = 7;

/** The wall clock of an instant in the zone, its milliseconds kept, and its calendar day moved `back` days. */
function clockOf(ms: number, zone: string, back = 0) {
  const w = wallClock(new Date(ms), zone);
  return { ...w, day: w.day - back, ms: ((ms % 1000) + 1000) % 1000 };
}

/** The first instant whose wall clock reads `c` (Date.UTC normalises a day moved back across a month). */
function instantOf(c: ReturnType<typeof clockOf>, zone: string): number {
  const text = formatWallClock(
    wallClock(new Date(Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second)), 'UTC'),
  );
  const at = instantOfWallClock(text, zone).getTime();
  // In a gap, the jump itself.
  return formatWallClock(wallClock(new Date(at), zone)) === text ? at + c.ms : at;
}

/** The baseline's windows [from, to), newest first, and their kind. */
export function baselineWindows(scope: RefScope) {
  const clock = (ms: number) => {
    const c = clockOf(ms, scope.zone);
    return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) + c.ms;
  };
  if (clock(scope.to) - clock(scope.from) > 86_400_000)
    return {
      kind: 'previous' as const,
      windows: [[2 * scope.from - scope.to, scope.from] as const],
    };
  return {
    kind: 'same_hours' as const,
    windows: Array.from({ length: BASELINE_DAYS }, (_, i) => [
      instantOf(clockOf(scope.from, scope.zone, i + 1), scope.zone),
      instantOf(clockOf(scope.to, scope.zone, i + 1), scope.zone),
    ]),
  };
}

export function driverFigures(posts: RefPost[], scope: RefScope, minPosts: number, limit: number) {
  const inWindow = scoped(posts, scope);
  const { windows } = baselineWindows(scope);
  const inBaseline = windows.flatMap(([from, to]) => scoped(posts, scope, from!, to!));
  const counts = new Map<string, { kind: Kind; value: string; a: number; b: number }>();
  const count = (list: RefPost[], side: 'a' | 'b') => {
    for (const post of list)
      for (const [kind, value] of valuesOf(post, scope)) {
        const key = `${kind}\u0000${value}`;
        const row = counts.get(key) ?? { kind, value, a: 0, b: 0 };
        row[side] += 1;
        counts.set(key, row);
      }
  };
  count(inWindow, 'a');
  count(inBaseline, 'b');
  const nw = inWindow.length;
  const nb = inBaseline.length;
  const drivers = [...counts.values()]
    .filter((r) => r.a >= minPosts && (nb === 0 || r.a / nw > r.b / nb))
    .map((r) => ({ ...r, g2: g2(r.a, r.b, nw, nb) }))
    .sort(
      (x, y) =>
        y.g2 - x.g2 ||
        y.a - x.a ||
        KINDS.indexOf(x.kind) - KINDS.indexOf(y.kind) ||
        byCodePoint(x.value, y.value),
    )
    .slice(0, limit);
  return { nw, nb, drivers };
}
