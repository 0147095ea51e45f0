// A dashboard's scope and figures in plain TypeScript over the reference's posts (query.ts): the range in the
// workspace's time zone, the platforms and languages, the query, the drill-down refinements (each meaning what
// server/social/insights/refine.ts documents), the workspace's sentiment corrections, and the overview's figures.
// Wall-clock buckets come from Intl (insights-brute-force.ts), never from the code under test.
import type { Bucket, Refine } from '@contract/insights';
import { CORRECTED_SCORE } from '@contract/sentiment-corrections';
import type { QueryNode } from '@server/query/index';
import { bucketKey, bucketKeys, PERSON_ORDER, perAuthor, wall } from '../insights-brute-force';
import type { Row } from '../insights.fixtures';
import { matching, type RefPost } from './query';
import { lower, tokens } from './tokens';

type Label = RefPost['label'];

/** What a dashboard looks at: from ≤ posted_at < to, as resolveInsightScope resolves a request. */
export interface RefScope {
  zone: string;
  from: number;
  to: number;
  query: QueryNode | null;
  platforms: string[];
  languages: string[];
  refine: Refine[];
  /** The workspace's sentiment corrections by post id. */
  corrections: ReadonlyMap<number, Label>;
}

/** The post's label and score as the workspace counts them: its correction's where it has one. */
const labelOf = (post: RefPost, scope: RefScope): Label => scope.corrections.get(post.id) ?? post.label;
/** Whether the post is rated as the workspace counts it: a corrected post is. */
const ratedOf = (post: RefPost, scope: RefScope): boolean => scope.corrections.has(post.id) || post.rated;
const sentimentOf = (post: RefPost, scope: RefScope): number => {
  const corrected = scope.corrections.get(post.id);
  // The record keeps the estimate as a 4-byte float (posts.sentiment real, the store's Float32).
  return corrected ? CORRECTED_SCORE[corrected] : Math.fround(post.sentiment);
};

const stripped = (values: unknown[], prefix = '') =>
  values.map((v) => lower(String(v).startsWith(prefix) ? String(v).slice(prefix.length) : String(v)));

/** Whether a refinement's values (ORed) match the post, before `exclude`. */
function refineMatches(refine: Refine, post: RefPost, scope: RefScope): boolean {
  switch (refine.field) {
    case 'date':
      return refine.values.some(
        (value) =>
          bucketKey(post.at, scope.zone, refine.bucket) ===
          bucketKey(Date.parse(value), scope.zone, refine.bucket),
      );
    case 'platform':
      return (refine.values as string[]).includes(post.platform);
    case 'hashtag':
      return stripped(refine.values, '#').some((v) => post.hashtags.includes(v));
    case 'mention':
      return stripped(refine.values, '@').some((v) => post.mentions.includes(v));
    case 'domain':
      return stripped(refine.values).some((v) => post.domains.includes(v));
    case 'term': {
      const words = new Set(tokens(post.text).map((t) => t.word));
      return stripped(refine.values).some((v) => words.has(v));
    }
    case 'author':
      return refine.values.some((v) =>
        typeof v === 'number' ? v === post.authorId : stripped([v], '@')[0] === lower(post.handle),
      );
    case 'sentiment':
      return (refine.values as string[]).includes(ratedOf(post, scope) ? labelOf(post, scope) : 'not_rated');
    case 'language':
      return post.language !== null && (refine.values as string[]).includes(post.language);
    case 'media':
      return (refine.values as string[]).includes(post.media);
    case 'kind':
      return (refine.values as string[]).includes(post.kind);
    case 'followers':
      return refine.values.some(
        ({ min, max }) =>
          (min === undefined || post.followers >= min) && (max === undefined || post.followers < max),
      );
    case 'tag':
      return refine.values.some((v) => (post.tags ?? []).includes(v));
    case 'hour_of_week': {
      const w = wall(post.at, scope.zone);
      return refine.values.some(({ day, hour }) => w.weekday === day && w.h === hour);
    }
  }
}

/** The posts of the scope within [from, to): the query, the filters, every refinement (exclude: matching none). */
export function scoped(posts: RefPost[], scope: RefScope, from = scope.from, to = scope.to): RefPost[] {
  return matching(scope.query, posts).filter(
    (post) =>
      post.at >= from &&
      post.at < to &&
      (!scope.platforms.length || scope.platforms.includes(post.platform)) &&
      (!scope.languages.length || (post.language !== null && scope.languages.includes(post.language))) &&
      scope.refine.every((refine) => refineMatches(refine, post, scope) !== (refine.exclude ?? false)),
  );
}

export const engagementOf = (post: RefPost) => post.likes + post.comments + post.shares;

/** The brute force's row of a post (its per-author helpers read these fields). */
const rowOf = (post: RefPost) =>
  ({
    id: post.id,
    authorId: post.authorId,
    followers: post.followers,
    engagement: engagementOf(post),
  }) as Row;

/** One period's totals: posts, distinct authors, engagement, reach (the distinct authors' followers). */
function totals(posts: RefPost[]) {
  const authors = perAuthor(posts.map(rowOf));
  return {
    mentions: posts.length,
    authors: authors.length,
    engagement: posts.reduce((sum, p) => sum + engagementOf(p), 0),
    reach: authors.reduce((sum, a) => sum + a.followers, 0),
  };
}

/**
 * The overview's figures: each period's totals (the range, and the previous period of the same length; a period
 * without posts left out), every wall-clock bucket of the range zero-filled with its posts, engagement, labels and
 * sentiment, posts per platform (most first, then by name), the top people (most posts, then engagement, then the
 * lower id) and the top posts (most engagement, then the higher id).
 */
export function overviewFigures(posts: RefPost[], scope: RefScope, bucket: Bucket, top: number) {
  const current = scoped(posts, scope);
  const previous = scoped(posts, scope, 2 * scope.from - scope.to, scope.from);
  const periods = [
    { cur: true, ...totals(current) },
    { cur: false, ...totals(previous) },
  ].filter((period) => period.mentions > 0);
  const buckets = new Map(
    bucketKeys(scope.from, scope.to, scope.zone, bucket).map((local) => [
      local,
      {
        local,
        mentions: 0,
        engagement: 0,
        positive: 0,
        neutral: 0,
        negative: 0,
        not_rated: 0,
        sentiment_sum: 0,
      },
    ]),
  );
  const platforms = new Map<string, number>();
  for (const post of current) {
    const b = buckets.get(bucketKey(post.at, scope.zone, bucket))!;
    b.mentions += 1;
    b.engagement += engagementOf(post);
    // A post too short to rate counts apart, and not in the sentiment sum (the average is over rated posts).
    if (!ratedOf(post, scope)) b.not_rated += 1;
    else {
      b[labelOf(post, scope)] += 1;
      b.sentiment_sum += sentimentOf(post, scope);
    }
    platforms.set(post.platform, (platforms.get(post.platform) ?? 0) + 1);
  }
  return {
    periods,
    buckets: [...buckets.values()],
    platforms: [...platforms]
      .map(([platform, mentions]) => ({ platform, mentions }))
      .sort((a, b) => b.mentions - a.mentions || (a.platform < b.platform ? -1 : 1)),
    top_people: perAuthor(current.map(rowOf))
      .sort(PERSON_ORDER.mentions)
      .slice(0, top)
      .map((a) => ({ author_id: a.id, mentions: a.mentions, engagement: a.engagement })),
    top_posts: [...current]
      .sort((a, b) => engagementOf(b) - engagementOf(a) || b.id - a.id)
      .slice(0, top)
      .map((p) => p.id),
  };
}

/**
 * The saved queries' sparklines: per scope (its index; null: not counted) and wall-clock day of the zone, the days
 * that have posts, ordered by index then day.
 */
export function dayCounts(posts: RefPost[], scopes: Array<RefScope | null>) {
  const rows: Array<{ i: number; local: string; n: number }> = [];
  scopes.forEach((scope, i) => {
    if (!scope) return;
    const days = new Map<string, number>();
    for (const post of scoped(posts, scope)) {
      const local = bucketKey(post.at, scope.zone, 'day');
      days.set(local, (days.get(local) ?? 0) + 1);
    }
    for (const [local, n] of [...days].sort(([a], [b]) => (a < b ? -1 : 1))) rows.push({ i, local, n });
  });
  return rows;
}

/**
 * The people dashboard's figures: the distinct authors of the scope's posts, their posts, and the top `limit` by
 * mentions (then engagement, then the lower id), by followers (then mentions, then id) and by engagement (then
 * mentions, then id).
 */
export function peopleFigures(posts: RefPost[], scope: RefScope, limit: number) {
  const current = scoped(posts, scope);
  const authors = perAuthor(current.map(rowOf));
  const top = (order: (a: (typeof authors)[number], b: (typeof authors)[number]) => number) =>
    [...authors]
      .sort(order)
      .slice(0, limit)
      .map((a) => ({ author_id: a.id, mentions: a.mentions, engagement: a.engagement }));
  return {
    authors: authors.length,
    posts: current.length,
    by_mentions: top(PERSON_ORDER.mentions),
    by_followers: top(PERSON_ORDER.followers),
    by_engagement: top(PERSON_ORDER.engagement),
  };
}

/** One group of the performance dashboard: the key (null where rolled up, g… = 1) and its figures. */
export interface PerformanceGroup {
  platform: string | null;
  media: string | null;
  kind: string | null;
  /** The wall-clock day of the week (1 = Monday) and hour in the zone. */
  dow: number | null;
  hr: number | null;
  gp: number;
  gm: number;
  gk: number;
  gd: number;
  posts: number;
  likes: number;
  comments: number;
  shares: number;
  /** Views unknown count as 0. */
  views: number;
  engagement: number;
  /** The mean of engagement ÷ followers over the posts whose author has followers; null when none has. */
  rate: number | null;
  /** The mean sentiment as the workspace counts it (corrections' scores). */
  sentiment: number | null;
}

/**
 * The performance dashboard's groups, each with posts: all posts, per platform, per media, per kind, and per hour of
 * the week (the zone's wall-clock day and hour).
 */
export function performanceGroups(posts: RefPost[], scope: RefScope): PerformanceGroup[] {
  const groups = new Map<string, { key: Partial<PerformanceGroup>; posts: RefPost[] }>();
  const add = (key: Partial<PerformanceGroup>, post: RefPost) => {
    const id = JSON.stringify(key);
    (groups.get(id) ?? groups.set(id, { key, posts: [] }).get(id)!).posts.push(post);
  };
  for (const post of scoped(posts, scope)) {
    const w = wall(post.at, scope.zone);
    add({}, post);
    add({ platform: post.platform }, post);
    add({ media: post.media }, post);
    add({ kind: post.kind }, post);
    add({ dow: w.weekday, hr: w.h }, post);
  }
  const sumOf = (list: RefPost[], value: (post: RefPost) => number) =>
    list.reduce((sum, post) => sum + value(post), 0);
  return [...groups.values()].map(({ key, posts: list }) => {
    const rated = list.filter((post) => post.followers > 0);
    const scored = list.filter((post) => ratedOf(post, scope));
    return {
      platform: key.platform ?? null,
      media: key.media ?? null,
      kind: key.kind ?? null,
      dow: key.dow ?? null,
      hr: key.hr ?? null,
      gp: key.platform === undefined ? 1 : 0,
      gm: key.media === undefined ? 1 : 0,
      gk: key.kind === undefined ? 1 : 0,
      gd: key.dow === undefined ? 1 : 0,
      posts: list.length,
      likes: sumOf(list, (p) => p.likes),
      comments: sumOf(list, (p) => p.comments),
      shares: sumOf(list, (p) => p.shares),
      views: sumOf(list, (p) => p.views ?? 0),
      engagement: sumOf(list, engagementOf),
      rate: rated.length ? sumOf(rated, (p) => engagementOf(p) / p.followers) / rated.length : null,
      sentiment: scored.length ? sumOf(scored, (p) => sentimentOf(p, scope)) / scored.length : null,
    };
  });
}

/** Code-point order (UTF-8's bytes, as ClickHouse and COLLATE "C" compare), not UTF-16's. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The conversation's hashtags, mentioned accounts and linked domains: the scope's posts carrying each (an element
 * repeated in a post counts once), most first, ties in code-point order, the first `limit` of each.
 */
export function conversationTags(posts: RefPost[], scope: RefScope, limit: number) {
  const current = scoped(posts, scope);
  const top = (of: (post: RefPost) => string[]) => {
    const counts = new Map<string, number>();
    for (const post of current)
      for (const value of new Set(of(post))) counts.set(value, (counts.get(value) ?? 0) + 1);
    return [...counts]
      .map(([value, n]) => ({ value, posts: n }))
      .sort((a, b) => b.posts - a.posts || byCodePoint(a.value, b.value))
      .slice(0, limit);
  };
  return {
    hashtags: top((post) => post.hashtags),
    mentions: top((post) => post.mentions),
    domains: top((post) => post.domains),
  };
}
