// The generator's shape on a sample (no database): determinism, power-law followers, dominant accounts, daily and
// weekly rhythm, languages, bursts, and fields derived as the importer derives them.
import { beforeAll, describe, expect, it } from 'vitest';
import { DAY, HOUR } from '@server/social/corpus/generate/clock';
import { planCorpus } from '@server/social/corpus/generate/plan';
import type { GenPost } from '@server/social/corpus/generate/posts';
import type { GenProfile } from '@server/social/corpus/generate/profiles';
import { TOPICS } from '@server/social/corpus/generate/topics';
import { scoreSentiment } from '@server/social/corpus/sentiment-model';
import { extractHashtags } from '@server/social/corpus/text';

const END = Date.UTC(2025, 5, 1);
const N = 20_000;
let profiles: GenProfile[];
let posts: GenPost[];

beforeAll(() => {
  const plan = planCorpus({ seed: 42, posts: N, end: END });
  profiles = plan.profiles;
  posts = [...plan.posts()];
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('corpus generator', () => {
  it('is deterministic for a seed, and another seed gives another corpus', () => {
    const sample = (seed: number) => {
      const plan = planCorpus({ seed, posts: 2_000, end: END });
      return { profiles: plan.profiles, posts: [...plan.posts()] };
    };
    const first = sample(42);
    expect(sample(42)).toEqual(first);
    expect(sample(43).posts.map((p) => p.text)).not.toEqual(first.posts.map((p) => p.text));
  });

  it('keeps every post inside the window, and dates the window by its end', () => {
    for (const post of posts) {
      expect(post.postedAt).toBeGreaterThanOrEqual(END - 180 * DAY);
      expect(post.postedAt).toBeLessThan(END);
    }
  });

  it('draws followers from a power law, with verified accounts among the big ones', () => {
    // Ordinary accounts (the brand, club and news accounts have fixed audiences).
    const followers = profiles.filter((p) => !p.externalId.startsWith('gen-brand-')).map((p) => p.followers);
    const typical = median(followers);
    expect(typical).toBeGreaterThan(20);
    expect(typical).toBeLessThan(300);
    expect(Math.max(...followers)).toBeGreaterThan(10_000);
    expect(Math.max(...profiles.map((p) => p.followers))).toBeGreaterThan(1_000_000);
    // Heavy tail: about (60/x)^1.1 above x — a few percent above 2,000, far more than an exponential law gives.
    const above = (x: number) => followers.filter((f) => f > x).length / followers.length;
    expect(above(2_000)).toBeGreaterThan(0.01);
    expect(above(20_000)).toBeLessThan(above(2_000) / 5);
    const verified = profiles.filter((p) => p.verified);
    expect(verified.length).toBeGreaterThan(0);
    expect(median(verified.map((p) => p.followers))).toBeGreaterThan(100 * typical);
  });

  it('lets a few accounts dominate: the top 1% write 10–25% of the posts', () => {
    const byAuthor = new Map<number, number>();
    for (const post of posts) byAuthor.set(post.authorIndex, (byAuthor.get(post.authorIndex) ?? 0) + 1);
    const counts = profiles.map((p) => byAuthor.get(p.index) ?? 0).sort((a, b) => b - a);
    const top = counts.slice(0, Math.ceil(counts.length / 100)).reduce((a, b) => a + b, 0);
    expect(top / N).toBeGreaterThan(0.1);
    expect(top / N).toBeLessThan(0.25);
  });

  it('has a visible weekly rhythm (weekends quieter) and a daily one (nights quieter, local time)', () => {
    // Organic posts only: bursts fall on particular days.
    const burstDays = new Set(
      TOPICS.flatMap((t) =>
        t.burst ? [0, 1, 2].map((d) => Math.floor((END - t.burst!.daysBeforeEnd * DAY) / DAY) + d) : [],
      ),
    );
    const organic = posts.filter((p) => !burstDays.has(Math.floor(p.postedAt / DAY)));
    const weekday = new Array(7).fill(0) as number[];
    for (const post of organic) weekday[new Date(post.postedAt).getUTCDay()]! += 1;
    const weekend = (weekday[0]! + weekday[6]!) / 2;
    const midweek = (weekday[2]! + weekday[3]!) / 2;
    expect(weekend / midweek).toBeLessThan(0.85);

    const local = new Array(24).fill(0) as number[];
    const offsets = new Map(profiles.map((p) => [p.index, p.utcOffset]));
    for (const post of organic) {
      const hour = Math.floor((post.postedAt / HOUR + offsets.get(post.authorIndex)! + 48) % 24);
      local[hour]! += 1;
    }
    expect(local[4]! * 4).toBeLessThan(local[20]!);
  });

  it('writes in several languages, on several platforms, in every kind', () => {
    const share = (key: (p: GenPost) => string) => {
      const counts = new Map<string, number>();
      for (const post of posts) counts.set(key(post), (counts.get(key(post)) ?? 0) + 1);
      return counts;
    };
    const languages = share((p) => p.language);
    for (const language of ['en', 'es', 'ja', 'ko'])
      expect(languages.get(language)! / N).toBeGreaterThan(0.1);
    expect(share((p) => p.platform).size).toBe(6);
    expect([...share((p) => p.kind).keys()].sort()).toEqual(['original', 'quote', 'reply', 'repost']);
    expect([...share((p) => p.media).keys()].sort()).toEqual(['image', 'link', 'text', 'video']);
    const korean = posts.find((p) => p.language === 'ko' && p.kind === 'original')!;
    expect(korean.text).toMatch(/[\uac00-\ud7af]/);
    const japanese = posts.find((p) => p.language === 'ja' && p.kind === 'original')!;
    expect(japanese.text).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });

  it('has surges: the outage days carry several times a normal day', () => {
    const outage = TOPICS.find((t) => t.id === 'outage')!.burst!;
    const day = (t: number) => Math.floor(t / DAY);
    const perDay = new Map<number, number>();
    for (const post of posts) perDay.set(day(post.postedAt), (perDay.get(day(post.postedAt)) ?? 0) + 1);
    const surge = perDay.get(day(END - outage.daysBeforeEnd * DAY))!;
    expect(surge).toBeGreaterThan(3 * median([...perDay.values()]));
  });

  it('derives hashtags, mentions, domains and sentiment from the text as the importer does', () => {
    for (const post of posts.slice(0, 2_000)) {
      expect(post.hashtags).toEqual(extractHashtags(post.text));
      for (const tag of [...post.hashtags, ...post.mentions]) expect(tag).toBe(tag.toLowerCase());
      for (const domain of post.domains) expect(domain).not.toMatch(/^www\./);
      expect(post.sentiment).toBe(scoreSentiment(post.text, post.language).sentiment);
      expect(post.text).not.toMatch(/\p{Cs}/u);
    }
    const replies = posts.filter((p) => p.kind === 'reply');
    expect(replies.every((p) => p.text.startsWith('@') && p.mentions.length > 0)).toBe(true);
    const labels = new Set(posts.map((p) => p.sentimentLabel));
    expect([...labels].sort()).toEqual(['negative', 'neutral', 'positive']);
  });

  it('scales engagement with followers', () => {
    const byAuthor = new Map(profiles.map((p) => [p.index, p]));
    const originals = posts.filter((p) => p.kind === 'original');
    const big = originals.filter((p) => byAuthor.get(p.authorIndex)!.followers > 100_000).map((p) => p.likes);
    const small = originals.filter((p) => byAuthor.get(p.authorIndex)!.followers < 100).map((p) => p.likes);
    expect(median(big)).toBeGreaterThan(100 * Math.max(1, median(small)));
  });
});
