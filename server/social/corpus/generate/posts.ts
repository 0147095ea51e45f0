// Synthetic posts, one after the other from the seed's "posts" stream: author (weighted by activity), topic (by
// language), time (rhythm or burst), kind and media (per platform), text, engagement (log-normal, scaled by followers
// and media), and the fields the importer would derive (hashtags, mentions, domains, sentiment).
import type { MEDIA_TYPES, POST_KINDS } from '@server/db/social-schema';
import type { SentimentLabel } from '../sentiment';
import { sentimentRated } from '../sentiment-explain';
import { scoreSentiment, sentimentModelVersion } from '../sentiment-model';
import { extractDomains, extractHashtags, extractMentions } from '../text';
import { Clock } from './clock';
import { composeOriginal, composeQuote, composeReply, composeRepost, randomId } from './compose';
import type { GenProfile, Platform } from './profiles';
import { Random, weighted, WeightedTable } from './prng';
import { GEN_LANGUAGES, TOPICS, type Lang, type Mood, type Topic } from './topics';

export type PostKind = (typeof POST_KINDS)[number];
export type MediaType = (typeof MEDIA_TYPES)[number];

export interface GenPost {
  platform: Platform;
  externalId: string;
  authorIndex: number;
  text: string;
  language: Lang;
  postedAt: number;
  kind: PostKind;
  media: MediaType;
  likes: number;
  comments: number;
  shares: number;
  views: number | null;
  url: string;
  hashtags: string[];
  mentions: string[];
  domains: string[];
  sentiment: number;
  sentimentLabel: SentimentLabel;
  /** The scorer's version (sentimentModelVersion()). */
  sentimentModel: string;
  /** Whether the text gave enough to rate (sentimentRated()): false is "not rated". */
  sentimentRated: boolean;
}

interface Earlier {
  handle: string;
  text: string;
  topic: Topic;
  time: number;
  media: MediaType;
}

const KINDS: Record<Platform, WeightedTable<PostKind>> = {
  x: weighted({ original: 55, reply: 25, repost: 12, quote: 8 }),
  instagram: weighted({ original: 85, reply: 15 }),
  tiktok: weighted({ original: 80, reply: 20 }),
  youtube: weighted({ original: 60, reply: 40 }),
  facebook: weighted({ original: 70, reply: 20, repost: 10 }),
  reddit: weighted({ original: 35, reply: 65 }),
};
const MEDIA: Record<Platform, WeightedTable<MediaType>> = {
  x: weighted({ text: 55, image: 22, video: 10, link: 13 }),
  instagram: weighted({ image: 65, video: 35 }),
  tiktok: weighted({ video: 1 }),
  youtube: weighted({ video: 1 }),
  facebook: weighted({ text: 35, image: 30, video: 15, link: 20 }),
  reddit: weighted({ text: 60, link: 25, image: 12, video: 3 }),
};
/** Expected likes per follower. */
const LIKE_RATE: Record<Platform, number> = {
  x: 0.01,
  instagram: 0.03,
  tiktok: 0.05,
  youtube: 0.02,
  facebook: 0.01,
  reddit: 0.02,
};
const MEDIA_FACTOR: Record<MediaType, number> = { text: 1, image: 1.4, video: 1.8, link: 0.6 };
const KIND_FACTOR: Record<PostKind, number> = { original: 1, reply: 0.15, repost: 0.05, quote: 0.5 };
const RING = 2_000;
const INT_MAX = 2_147_483_647;

function postExternalId(seed: number, index: number): string {
  return `gen-${seed}-p${index}`;
}

function moodTable(mood: Record<Mood, number>) {
  return weighted(mood);
}

export class PostGenerator {
  private readonly random: Random;
  private readonly authors: WeightedTable<GenProfile>;
  private readonly topicsByLang: Record<Lang, WeightedTable<Topic>>;
  private readonly moods = new Map<string, WeightedTable<Mood>>();
  private readonly bursts = new Map<Topic, number>();
  private readonly earlier: Record<Lang, Earlier[]> = { en: [], es: [], ja: [], ko: [] };
  private readonly popular: string[];

  constructor(
    private readonly seed: number,
    private readonly profiles: readonly GenProfile[],
    private readonly clock: Clock,
  ) {
    this.random = new Random(seed, 'posts');
    this.authors = new WeightedTable(
      profiles,
      profiles.map((p) => p.activity),
    );
    this.topicsByLang = Object.fromEntries(
      GEN_LANGUAGES.map((lang) => [
        lang,
        new WeightedTable(
          TOPICS,
          TOPICS.map((t) => t.weight * (t.affinity?.[lang] ?? 1)),
        ),
      ]),
    ) as Record<Lang, WeightedTable<Topic>>;
    for (const topic of TOPICS) {
      this.moods.set(topic.id, moodTable(topic.mood));
      if (topic.burst?.lateMood) this.moods.set(`${topic.id}:late`, moodTable(topic.burst.lateMood));
      const start = topic.burst ? clock.burstStart(topic.burst) : undefined;
      if (start !== undefined) this.bursts.set(topic, start);
    }
    this.popular = [...profiles]
      .sort((a, b) => b.followers - a.followers)
      .slice(0, 50)
      .map((p) => p.handle);
  }

  private engagement(author: GenProfile, media: MediaType, kind: PostKind, boost: number) {
    const r = this.random;
    const expected =
      (Math.pow(author.followers + 10, 0.92) * LIKE_RATE[author.platform] + 0.5) *
      MEDIA_FACTOR[media] *
      KIND_FACTOR[kind] *
      boost;
    const sigma = 1.1;
    const likes = Math.min(INT_MAX, Math.floor(r.logNormal(Math.log(expected) - (sigma * sigma) / 2, sigma)));
    const comments = Math.min(INT_MAX, Math.floor(likes * r.logNormal(Math.log(0.06), 0.8)));
    const shares = Math.min(INT_MAX, Math.floor(likes * r.logNormal(Math.log(0.12), 0.9)));
    const hasViews =
      author.platform === 'x' ||
      author.platform === 'tiktok' ||
      author.platform === 'youtube' ||
      (author.platform === 'instagram' && media === 'video');
    const views = hasViews
      ? Math.max(likes * 8, Math.floor((author.followers + 50) * r.logNormal(Math.log(0.35), 1) * boost))
      : null;
    return { likes, comments, shares, views };
  }

  private permalink(author: GenProfile, topic: Topic, time: number, index: number): string {
    const numeric = `${time}${String(index % 1_000_000).padStart(6, '0')}`;
    switch (author.platform) {
      case 'x':
        return `https://x.com/${author.handle}/status/${numeric}`;
      case 'instagram':
        return `https://www.instagram.com/p/${randomId(this.random, 11)}/`;
      case 'tiktok':
        return `https://www.tiktok.com/@${author.handle}/video/${numeric}`;
      case 'youtube':
        return `https://www.youtube.com/watch?v=${randomId(this.random, 11)}`;
      case 'facebook':
        return `https://www.facebook.com/${author.handle}/posts/${numeric}`;
      case 'reddit':
        return `https://www.reddit.com/r/${topic.subreddit}/comments/${randomId(this.random, 7)}/`;
    }
  }

  /** The post with this index (call in order: later posts reply to earlier ones). */
  next(index: number): GenPost {
    const r = this.random;
    const author = this.authors.sample(r);
    const lang: Lang = author.language !== 'en' && r.chance(0.03) ? 'en' : author.language;
    let kind = KINDS[author.platform].sample(r);
    const pool = this.earlier[lang];
    const target = kind !== 'original' && pool.length > 0 ? r.pick(pool) : undefined;
    if (!target) kind = 'original';
    const topic = target && r.chance(0.85) ? target.topic : this.topicsByLang[lang].sample(r);

    let time: number;
    let boost = 1;
    let late = false;
    const burstStart = this.bursts.get(topic);
    if (target) time = this.clock.after(r, target.time);
    else if (burstStart !== undefined && r.chance(topic.burst!.share)) {
      ({ time, late } = this.clock.inBurst(r, topic.burst!, burstStart));
      boost = 1.5;
    } else time = this.clock.organic(r, topic.id, author.utcOffset);

    const moods = (late && this.moods.get(`${topic.id}:late`)) || this.moods.get(topic.id)!;
    const mood = moods.sample(r);
    let media = kind === 'repost' && target ? target.media : MEDIA[author.platform].sample(r);
    let text: string;
    if (kind === 'reply') text = composeReply(r, topic, lang, mood, target!.handle);
    else if (kind === 'quote') text = composeQuote(r, topic, lang, mood, target!);
    else if (kind === 'repost') text = composeRepost(author.platform, target!);
    else {
      const composed = composeOriginal(r, topic, lang, mood, media === 'link', this.popular);
      text = composed.text;
      if (composed.linked && media === 'text') media = 'link';
    }
    const { likes, comments, shares, views } = this.engagement(author, media, kind, boost);
    const sentiment = scoreSentiment(text, lang);
    const post: GenPost = {
      platform: author.platform,
      externalId: postExternalId(this.seed, index),
      authorIndex: author.index,
      text,
      language: lang,
      postedAt: time,
      kind,
      media,
      likes,
      comments,
      shares,
      views,
      url: this.permalink(author, topic, time, index),
      hashtags: extractHashtags(text),
      mentions: extractMentions(text),
      domains: extractDomains(text),
      sentiment: sentiment.sentiment,
      sentimentLabel: sentiment.label,
      sentimentModel: sentimentModelVersion(),
      sentimentRated: sentimentRated(sentiment.tokens, sentiment.label),
    };
    if (kind === 'original') {
      const entry = { handle: author.handle, text, topic, time, media };
      if (pool.length < RING) pool.push(entry);
      else pool[r.int(0, RING - 1)] = entry;
    }
    return post;
  }
}
