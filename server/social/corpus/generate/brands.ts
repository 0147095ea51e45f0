// Accounts every generated corpus has, with the same handles whatever the seed: brands, clubs, artists, news desks.
import type { Lang } from './topics';

export interface Brand {
  handle: string;
  displayName: string;
  language: Lang;
  country: string;
  followers: number;
  /** Posting activity among 60,000 ordinary accounts averaging 2.1 each (scaled with the corpus's size). */
  activity: number;
  bio: string;
}

export const BRANDS: readonly Brand[] = [
  {
    handle: 'novamobile',
    displayName: 'Nova',
    language: 'en',
    country: 'US',
    followers: 8_200_000,
    activity: 120,
    bio: 'Official account of Nova. Meet the Nova X.',
  },
  {
    handle: 'riversidefc',
    displayName: 'Riverside FC',
    language: 'en',
    country: 'GB',
    followers: 4_100_000,
    activity: 160,
    bio: 'Continental Cup champions.',
  },
  {
    handle: 'realmontana',
    displayName: 'Real Montaña',
    language: 'es',
    country: 'ES',
    followers: 3_300_000,
    activity: 150,
    bio: 'Cuenta oficial del Real Montaña.',
  },
  {
    handle: 'continentalcup',
    displayName: 'Continental Cup',
    language: 'en',
    country: 'CH',
    followers: 2_600_000,
    activity: 90,
    bio: 'The Continental Cup. Official.',
  },
  {
    handle: 'bakewithhana',
    displayName: 'Hana Bakes',
    language: 'en',
    country: 'CA',
    followers: 940_000,
    activity: 60,
    bio: 'Recipes that went viral. Matcha everything.',
  },
  {
    handle: 'cloudnest',
    displayName: 'CloudNest',
    language: 'en',
    country: 'US',
    followers: 1_200_000,
    activity: 50,
    bio: 'Your files, everywhere.',
  },
  {
    handle: 'cloudnest_status',
    displayName: 'CloudNest Status',
    language: 'en',
    country: 'US',
    followers: 240_000,
    activity: 70,
    bio: 'Service status and incident updates.',
  },
  {
    handle: 'aurora9_official',
    displayName: 'AURORA9 (오로라나인)',
    language: 'ko',
    country: 'KR',
    followers: 12_400_000,
    activity: 110,
    bio: 'AURORA9 Official. 2nd album Starlight OUT NOW',
  },
  {
    handle: 'aurora9_jp',
    displayName: 'AURORA9 JAPAN OFFICIAL',
    language: 'ja',
    country: 'JP',
    followers: 2_100_000,
    activity: 80,
    bio: 'AURORA9 日本公式アカウント',
  },
  {
    handle: 'streamly',
    displayName: 'Streamly',
    language: 'en',
    country: 'US',
    followers: 5_500_000,
    activity: 100,
    bio: 'Stories worth staying up for.',
  },
  {
    handle: 'techdaily_news',
    displayName: 'Tech Daily',
    language: 'en',
    country: 'US',
    followers: 2_300_000,
    activity: 900,
    bio: 'Breaking tech news, all day.',
  },
  {
    handle: 'deportes_hoy',
    displayName: 'Deportes Hoy',
    language: 'es',
    country: 'MX',
    followers: 1_600_000,
    activity: 800,
    bio: 'Toda la actualidad deportiva.',
  },
  {
    handle: 'nihon_news_flash',
    displayName: 'ニュース速報',
    language: 'ja',
    country: 'JP',
    followers: 900_000,
    activity: 850,
    bio: '最新ニュースをお届けします',
  },
  {
    handle: 'kstar_daily',
    displayName: '케이스타 데일리',
    language: 'ko',
    country: 'KR',
    followers: 1_100_000,
    activity: 800,
    bio: 'K-엔터 소식을 가장 빠르게',
  },
];
