// The tracked queries of bench:match: a realistic mix over a sample's own vocabulary, as teams write them to follow
// brands and topics. Words, hashtags and mentions of the sample (most of them outside its commonest words) and brand
// names it never holds; phrases (neighbouring words of a post); OR lists; NOT; prefixes; Japanese and Korean
// substrings; emoji; field filters (platform, lang, country, author); NEAR; a few with no term to index (NOT alone).
import { parseQuery } from '@server/query/index';
import { matchMode } from '@server/query/terms';
import { Random } from '@server/social/corpus/generate/prng';

export interface SamplePost {
  text: string;
  platform: string;
  language: string | null;
  hashtags: readonly string[];
  mentions: readonly string[];
  handle: string;
  country: string | null;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const UNSPACED_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]{2,}/gu;
/** Words a team would track: letters only (not the ids of links). */
const LETTERS = /^\p{L}+$/u;
const EMOJI = /\p{Extended_Pictographic}/gu;

/** The sample's words (as written), their neighbours, its tags, handles, CJK runs and emoji. */
function vocabulary(posts: readonly SamplePost[]) {
  const counts = new Map<string, number>();
  const pairs: Array<[string, string]> = [];
  const nearby: Array<[string, string, number]> = [];
  const [hashtags, mentions, handles, runs, emoji] = [
    new Set<string>(),
    new Set<string>(),
    new Set<string>(),
    new Set<string>(),
    new Set<string>(),
  ];
  for (const post of posts) {
    const words = (post.text.match(WORD) ?? []).filter((w) => matchMode(w) === 'words' && LETTERS.test(w));
    for (const word of words) counts.set(word.toLowerCase(), (counts.get(word.toLowerCase()) ?? 0) + 1);
    if (words.length > 1 && pairs.length < 5000) {
      const i = pairs.length % (words.length - 1);
      pairs.push([words[i]!, words[i + 1]!]);
      const j = Math.min(words.length - 1, i + 2 + (pairs.length % 3));
      nearby.push([words[i]!, words[j]!, j - i]);
    }
    post.hashtags.forEach((tag) => hashtags.add(tag));
    post.mentions.forEach((mention) => mentions.add(mention));
    handles.add(post.handle);
    for (const run of post.text.match(UNSPACED_RUN) ?? []) runs.add(run);
    for (const symbol of post.text.match(EMOJI) ?? []) emoji.add(symbol);
  }
  // By frequency, the commonest 40 (articles, pronouns) left out (nobody tracks "the"), and those seen less than 3 times.
  const ranked = [...counts]
    .filter(([, n]) => n >= 3)
    .sort((a, b) => b[1] - a[1])
    .map(([word]) => word);
  return {
    words: ranked.slice(40),
    pairs,
    nearby,
    hashtags: [...hashtags],
    mentions: [...mentions],
    handles: [...handles],
    runs: [...runs],
    emoji: [...emoji],
  };
}

const SYLLABLES = ['zor', 'blax', 'vey', 'tri', 'quon', 'mel', 'dax', 'ura', 'pix', 'nol', 'kev', 'sta'];
const PLATFORMS = ['x', 'instagram', 'tiktok', 'youtube', 'facebook', 'reddit'];
const LANGS = ['en', 'es', 'ja', 'ko'];
const COUNTRIES = ['US', 'GB', 'ES', 'MX', 'JP', 'KR', 'CA'];

/** `count` query texts that parse, the same for the same seed and sample. */
export function trackedQueryTexts(posts: readonly SamplePost[], count: number, seed: number): string[] {
  const random = new Random(seed, 'bench-match');
  const v = vocabulary(posts);
  const invented = () =>
    SYLLABLES[random.int(0, 11)]! +
    SYLLABLES[random.int(0, 11)]! +
    (random.chance(0.3) ? random.int(1, 9) : '');
  const word = () => (random.chance(0.35) ? invented() : random.pick(v.words));
  const hashtag = () => `#${random.chance(0.25) ? invented() : random.pick(v.hashtags)}`;
  const phrase = () => `"${random.pick(v.pairs).join(' ')}"`;
  const cjk = () => {
    const run = [...random.pick(v.runs)];
    const from = random.int(0, run.length - 2);
    return run.slice(from, from + random.int(2, 4)).join('');
  };
  const item = () => random.pick([word, word, word, hashtag, phrase])();
  const list = (n: number, of = item) => Array.from({ length: n }, of).join(' OR ');
  const field = () =>
    random.pick([
      () => `platform:${random.pick(PLATFORMS)}`,
      () => `lang:${random.pick(LANGS)}`,
      () => `country:${random.pick(COUNTRIES)}`,
    ])();
  const kinds: Array<[number, () => string]> = [
    [220, word],
    [90, hashtag],
    [30, () => `@${random.pick(v.mentions.length > 0 ? v.mentions : v.handles)}`],
    [90, phrase],
    [150, () => list(random.int(2, 6))],
    [
      90,
      () => (random.chance(0.5) ? `${word()} NOT ${word()}` : `(${list(random.int(2, 4))}) NOT ${item()}`),
    ],
    [
      70,
      () =>
        `${random.pick(v.words.filter((w) => w.length >= 5)).slice(0, random.int(3, 5))}*${random.chance(0.3) ? ` ${word()}` : ''}`,
    ],
    [
      90,
      () =>
        random.chance(0.6)
          ? cjk()
          : random.chance(0.5)
            ? list(random.int(2, 4), cjk)
            : `${cjk()} NOT ${cjk()}`,
    ],
    [10, () => random.pick(v.emoji)],
    [
      110,
      () =>
        random.chance(0.15)
          ? `author:${random.pick(v.handles)}`
          : random.chance(0.5)
            ? `${item()} ${field()}`
            : `(${list(random.int(2, 4))}) ${field()} NOT ${field()}`,
    ],
    [
      40,
      () => {
        const [a, b, d] = random.pick(v.nearby);
        return `${a} NEAR/${Math.max(d, random.int(1, 5))} ${b}`;
      },
    ],
    [10, () => (random.chance(0.5) ? `NOT ${word()}` : `NOT (${list(2)}) ${field()}`)],
  ];
  const texts: string[] = [];
  for (const [share, make] of kinds) {
    const n = Math.round((share / 1000) * count);
    for (let i = 0; i < n; i++) {
      let text = make();
      for (let tries = 0; !parseQuery(text).ok; tries++) text = tries < 20 ? make() : word();
      texts.push(text);
    }
  }
  while (texts.length < count) texts.push(word());
  return random.shuffle(texts.slice(0, count));
}
