// Synthetic accounts: power-law followers (Pareto), heavy-tailed activity (a few accounts write much of the corpus),
// verification that grows with audience, one language each with a country and its time zone.
import type { PLATFORMS } from '@server/db/social-schema';
import { Random, weighted, WeightedTable } from './prng';
import { BRANDS } from './brands';
import { GEN_LANGUAGES, type Lang } from './topics';
import { VOCABULARY } from './vocab';

/** The platforms the synthetic corpus covers: collected platforms (Mastodon, Bluesky, feeds) come from collection jobs. */
export type Platform = Exclude<(typeof PLATFORMS)[number], 'mastodon' | 'bluesky' | 'rss' | 'hackernews'>;

export interface GenProfile {
  index: number;
  platform: Platform;
  externalId: string;
  handle: string;
  displayName: string;
  followers: number;
  following: number;
  verified: boolean;
  bio: string;
  country: string | null;
  language: Lang;
  avatarUrl: string | null;
  /** Hours east of UTC of the account's local time (drives its daily rhythm). */
  utcOffset: number;
  /** Relative posting rate. */
  activity: number;
}

const LANGUAGE_MIX = weighted<Lang>({ en: 45, es: 20, ja: 18, ko: 17 });
const PLATFORM_MIX: Record<Lang, WeightedTable<Platform>> = {
  en: weighted({ x: 30, instagram: 18, tiktok: 14, youtube: 8, facebook: 14, reddit: 16 }),
  es: weighted({ x: 30, instagram: 22, tiktok: 18, youtube: 8, facebook: 20, reddit: 2 }),
  ja: weighted({ x: 58, instagram: 15, tiktok: 10, youtube: 12, facebook: 3, reddit: 2 }),
  ko: weighted({ x: 32, instagram: 30, tiktok: 12, youtube: 18, facebook: 5, reddit: 3 }),
};
const COUNTRIES = Object.fromEntries(
  GEN_LANGUAGES.map((lang) => {
    const list = VOCABULARY[lang].countries;
    return [
      lang,
      new WeightedTable(
        list.map(([code, , offset]) => [code, offset] as const),
        list.map(([, weight]) => weight),
      ),
    ];
  }),
) as Record<Lang, WeightedTable<readonly [string, number]>>;

/** Followers: Pareto with scale 60 and shape 1.1 (median ≈ 110, a handful of accounts in the millions). */
const FOLLOWER_SCALE = 60;
const FOLLOWER_SHAPE = 1.1;
const MAX_FOLLOWERS = 150_000_000;
/** Activity: Pareto with shape 1.9 — with the brands, the top 1% of accounts write about 15% of the posts. */
const ACTIVITY_SHAPE = 1.9;

/** Probability of a verified badge: a logistic curve in log10(followers), 50% at 100,000. */
function verifiedProbability(followers: number): number {
  return 1 / (1 + Math.exp(-2.4 * (Math.log10(Math.max(1, followers)) - 5)));
}

/** UTC offsets of brand countries outside their language's list. */
const BRAND_OFFSETS: Record<string, number> = { CH: 1 };

function profileExternalId(seed: number, index: number): string {
  return `gen-${seed}-u${index}`;
}

function avatar(handle: string, random: Random): string | null {
  return random.chance(0.85) ? `https://avatars.example.com/${handle}.jpg` : null;
}

function ordinaryProfile(random: Random, seed: number, index: number, taken: Set<string>): GenProfile {
  const language = LANGUAGE_MIX.sample(random);
  const vocab = VOCABULARY[language];
  const platform = PLATFORM_MIX[language].sample(random);
  const [first, firstAscii] = random.pick(vocab.firstNames);
  const [last, lastAscii] = random.pick(vocab.lastNames);
  const style = random.int(0, 3);
  const base =
    style === 0
      ? `${firstAscii}${lastAscii}`
      : style === 1
        ? `${firstAscii}_${random.pick(vocab.handleWords)}`
        : style === 2
          ? `${lastAscii}.${firstAscii}`
          : `${firstAscii}${random.pick(vocab.handleWords)}`;
  let handle = random.chance(0.45) ? `${base}${random.int(1, 999)}` : base;
  while (taken.has(`${platform}:${handle}`)) handle = `${base}${random.int(1, 99_999)}`;
  taken.add(`${platform}:${handle}`);
  const displayName = vocab.familyFirst
    ? `${last}${language === 'ja' && random.chance(0.3) ? ' ' : ''}${first}`
    : random.chance(0.8)
      ? `${first} ${last}`
      : first;
  const followers = Math.min(MAX_FOLLOWERS, Math.floor(random.pareto(FOLLOWER_SCALE, FOLLOWER_SHAPE)) - 40);
  const [country, utcOffset] = COUNTRIES[language].sample(random);
  return {
    index,
    platform,
    externalId: profileExternalId(seed, index),
    handle,
    displayName,
    followers: Math.max(0, followers),
    following: Math.min(7_500, Math.floor(random.logNormal(Math.log(280), 1))),
    verified: random.chance(verifiedProbability(followers)),
    bio: random.pick(vocab.bios),
    country: random.chance(0.9) ? country : null,
    language,
    avatarUrl: avatar(handle, random),
    utcOffset,
    activity: random.pareto(1, ACTIVITY_SHAPE),
  };
}

/**
 * The accounts of a corpus: BRANDS first (external ids shared by every seed, so appending reuses them), then
 * `count` ordinary accounts from the seed's "profiles" stream.
 */
export function generateProfiles(seed: number, count: number): GenProfile[] {
  const random = new Random(seed, 'profiles');
  const taken = new Set<string>(BRANDS.map((brand) => `x:${brand.handle}`));
  const brands: GenProfile[] = BRANDS.map((brand, index) => {
    // [code, weight, UTC offset]; a brand's country may not be among its language's (CH for an English account).
    const known = VOCABULARY[brand.language].countries.find(([code]) => code === brand.country);
    const offset = known ? known[2] : (BRAND_OFFSETS[brand.country] ?? 0);
    return {
      index,
      platform: 'x',
      externalId: `gen-brand-${brand.handle}`,
      handle: brand.handle,
      displayName: brand.displayName,
      followers: brand.followers,
      following: 120 + index * 7,
      verified: true,
      bio: brand.bio,
      country: brand.country,
      language: brand.language,
      avatarUrl: `https://avatars.example.com/${brand.handle}.jpg`,
      utcOffset: offset,
      // Scaled with the corpus so brands keep the same share of posts at any size.
      activity: (brand.activity * Math.max(count, 1_000)) / 60_000,
    };
  });
  const profiles = [...brands];
  for (let i = 0; i < count; i++) profiles.push(ordinaryProfile(random, seed, brands.length + i, taken));
  return profiles;
}
