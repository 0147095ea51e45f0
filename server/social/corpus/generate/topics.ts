// The conversations of the synthetic corpus: a few topic clusters, each with its hashtags, the accounts it mentions,
// the sites it links to, its mood and (for some) a sudden surge. Brands, teams and artists are fictional.
export const GEN_LANGUAGES = ['en', 'es', 'ja', 'ko'] as const;
export type Lang = (typeof GEN_LANGUAGES)[number];
export type Mood = 'positive' | 'neutral' | 'negative';
export type TopicId = 'launch' | 'final' | 'food' | 'outage' | 'music' | 'series' | 'chatter';

export interface Burst {
  /** Days before the end of the window when the surge starts. */
  daysBeforeEnd: number;
  /** Hour (UTC) the surge starts. */
  hourUtc: number;
  /** How long it lasts (1–3 days); posts decay exponentially from the start. */
  days: number;
  /** Share of the topic's posts that fall in the surge. */
  share: number;
  /** The mood in the surge's last fifth (an outage ends with "it's back"). */
  lateMood?: Record<Mood, number>;
}

export interface Topic {
  id: TopicId;
  /** Share of posts (before language affinity). */
  weight: number;
  mood: Record<Mood, number>;
  /** Per language, plus hashtags used in every language. */
  hashtags: Record<Lang | 'all', string[]>;
  /** Handles of the topic's accounts (see BRANDS), mentioned in posts. */
  mentions: string[];
  /** Hosts linked from the topic's posts (besides each language's news sites). */
  hosts: string[];
  subreddit: string;
  burst?: Burst;
  /** Multiplier of the topic's daily volume from the first day (1) to the last (this value). */
  growth?: number;
  /** Per-language affinity (default 1): K-pop is talked about more in Korean and Japanese. */
  affinity?: Partial<Record<Lang, number>>;
  /** Extra weight on Fridays (weekly episodes). */
  friday?: number;
}

export const TOPICS: readonly Topic[] = [
  {
    id: 'launch',
    weight: 0.15,
    mood: { positive: 0.5, neutral: 0.3, negative: 0.2 },
    hashtags: {
      all: ['NovaX', 'NovaLaunch'],
      en: ['smartphone', 'tech', 'unboxing'],
      es: ['LanzamientoNovaX', 'tecnología'],
      ja: ['ノバX', 'スマホ', 'ガジェット'],
      ko: ['노바X', '스마트폰', '언박싱'],
    },
    mentions: ['novamobile'],
    hosts: ['www.nova-mobile.com', 'www.theverge.com', 'techcrunch.com', 'www.gsmarena.com'],
    subreddit: 'Android',
    burst: { daysBeforeEnd: 41, hourUtc: 17, days: 2, share: 0.3 },
  },
  {
    id: 'final',
    weight: 0.12,
    mood: { positive: 0.4, neutral: 0.3, negative: 0.3 },
    hashtags: {
      all: ['ContinentalCup', 'CupFinal'],
      en: ['RiversideFC', 'football'],
      es: ['FinalContinental', 'RealMontaña', 'fútbol'],
      ja: ['コンチネンタルカップ', 'サッカー'],
      ko: ['컨티넨탈컵', '축구', '이준호'],
    },
    mentions: ['riversidefc', 'realmontana', 'continentalcup'],
    hosts: ['www.continentalcup.com', 'www.espn.com', 'www.marca.com'],
    subreddit: 'soccer',
    burst: { daysBeforeEnd: 27, hourUtc: 19, days: 1, share: 0.35 },
    affinity: { es: 1.6 },
  },
  {
    id: 'food',
    weight: 0.1,
    mood: { positive: 0.6, neutral: 0.28, negative: 0.12 },
    hashtags: {
      all: ['MatchaTiramisu'],
      en: ['FoodTok', 'baking', 'dessert'],
      es: ['TiramisúDeMatcha', 'recetas', 'postres'],
      ja: ['抹茶ティラミス', 'カフェ巡り', 'スイーツ'],
      ko: ['말차티라미수', '디저트', '카페투어'],
    },
    mentions: ['bakewithhana'],
    hosts: ['www.bakewithhana.com', 'cookpad.com', 'www.youtube.com'],
    subreddit: 'Baking',
    growth: 5,
    affinity: { ja: 1.4, ko: 1.3 },
  },
  {
    id: 'outage',
    weight: 0.08,
    mood: { positive: 0.1, neutral: 0.35, negative: 0.55 },
    hashtags: {
      all: ['CloudNestDown', 'outage'],
      en: ['CloudNest', 'devops'],
      es: ['CaídaCloudNest'],
      ja: ['クラウドネスト障害'],
      ko: ['클라우드네스트장애'],
    },
    mentions: ['cloudnest', 'cloudnest_status'],
    hosts: ['status.cloudnest.io', 'downdetector.com', 'news.ycombinator.com'],
    subreddit: 'sysadmin',
    burst: {
      daysBeforeEnd: 12,
      hourUtc: 8,
      days: 3,
      share: 0.6,
      lateMood: { positive: 0.6, neutral: 0.3, negative: 0.1 },
    },
  },
  {
    id: 'music',
    weight: 0.13,
    mood: { positive: 0.65, neutral: 0.25, negative: 0.1 },
    hashtags: {
      all: ['AURORA9', 'Starlight', 'AURORA9_Starlight'],
      en: ['kpop', 'comeback'],
      es: ['kpopenespañol'],
      ja: ['オーロラナイン', 'カムバ'],
      ko: ['오로라나인', '컴백'],
    },
    mentions: ['aurora9_official', 'aurora9_jp'],
    hosts: ['www.youtube.com', 'open.spotify.com', 'www.soompi.com'],
    subreddit: 'kpop',
    burst: { daysBeforeEnd: 58, hourUtc: 9, days: 2, share: 0.3 },
    affinity: { ko: 3, ja: 2, es: 1.2 },
  },
  {
    id: 'series',
    weight: 0.12,
    mood: { positive: 0.4, neutral: 0.35, negative: 0.25 },
    hashtags: {
      all: ['MidnightHarbor', 'MidnightHarbor2'],
      en: ['Streamly', 'TVTwitter'],
      es: ['series'],
      ja: ['ミッドナイトハーバー', '海外ドラマ'],
      ko: ['미드나잇하버', '드라마'],
    },
    mentions: ['streamly'],
    hosts: ['www.streamly.tv', 'www.imdb.com', 'www.rottentomatoes.com'],
    subreddit: 'television',
    friday: 1.8,
  },
  {
    id: 'chatter',
    weight: 0.3,
    mood: { positive: 0.4, neutral: 0.4, negative: 0.2 },
    hashtags: {
      all: [],
      en: ['MondayMotivation', 'coffee', 'weekend', 'WFH'],
      es: ['lunes', 'café', 'findesemana'],
      ja: ['日常', '今日のランチ', '週末'],
      ko: ['일상', '월요일', '주말'],
    },
    mentions: [],
    hosts: ['medium.com', 'www.reddit.com'],
    subreddit: 'CasualConversation',
  },
];

/** News and reference sites linked in each language. */
export const NEWS_HOSTS: Record<Lang, string[]> = {
  en: [
    'www.bbc.co.uk',
    'www.nytimes.com',
    'www.theguardian.com',
    'edition.cnn.com',
    'www.youtube.com',
    'medium.com',
  ],
  es: ['elpais.com', 'www.infobae.com', 'www.clarin.com', 'www.eltiempo.com', 'www.youtube.com'],
  ja: ['news.yahoo.co.jp', 'www3.nhk.or.jp', 'www.itmedia.co.jp', 'www.asahi.com', 'note.com'],
  ko: ['n.news.naver.com', 'v.daum.net', 'www.yna.co.kr', 'm.blog.naver.com', 'www.youtube.com'],
};

export const EMOJI: Record<Mood, string[]> = {
  positive: ['😍', '🔥', '🙌', '❤️', '😊', '👏', '✨', '🎉', '👍', '💯'],
  neutral: ['👀', '🤔', '📱', '⏰', '📢', '👇', '📌'],
  negative: ['😡', '😤', '😞', '👎', '🙄', '😩', '💔'],
};
