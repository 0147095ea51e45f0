// Display names of the platforms the corpus covers (the contract's PLATFORM_VALUES).
import type { PLATFORM_VALUES } from '@contract/social-scope';

type Platform = (typeof PLATFORM_VALUES)[number];

const PLATFORM_NAMES: Record<Platform, string> = {
  x: 'X',
  instagram: 'Instagram',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  facebook: 'Facebook',
  reddit: 'Reddit',
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  rss: 'RSS & Atom',
  hackernews: 'Hacker News',
};

export const platformName = (platform: Platform) => PLATFORM_NAMES[platform];
