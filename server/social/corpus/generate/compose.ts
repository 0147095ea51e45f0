// Post text: sentences from the vocabulary, the small extras real posts carry (openers, reactions, emoji, mentions,
// links, hashtags), and the shapes of replies, reposts and quotes.
import type { Random } from './prng';
import { EMOJI, NEWS_HOSTS, type Lang, type Mood, type Topic } from './topics';
import { VOCABULARY } from './vocab';

const SLUG_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function randomId(random: Random, length: number, chars = SLUG_CHARS): string {
  let id = '';
  for (let i = 0; i < length; i++) id += chars[Math.floor(random.next() * chars.length)];
  return id;
}

function linkFor(random: Random, topic: Topic, lang: Lang): string {
  const host = random.chance(0.6) ? random.pick(topic.hosts) : random.pick(NEWS_HOSTS[lang]);
  return host === 'www.youtube.com'
    ? `https://${host}/watch?v=${randomId(random, 11)}`
    : `https://${host}/${topic.id}/${randomId(random, 8)}`;
}

function hashtags(random: Random, topic: Topic, lang: Lang): string[] {
  const roll = random.next();
  const count = roll < 0.35 ? 0 : roll < 0.7 ? 1 : roll < 0.9 ? 2 : 3;
  const pool = [...topic.hashtags.all, ...topic.hashtags[lang]];
  const chosen = new Set<string>();
  for (let i = 0; i < count && pool.length > 0; i++) chosen.add(random.pick(pool));
  return [...chosen].map((tag) => `#${tag}`);
}

export interface Composed {
  text: string;
  /** Whether a link was added (media "link" always has one). */
  linked: boolean;
}

/** An original post on a topic, in a mood. `popular` are handles worth mentioning besides the topic's accounts. */
export function composeOriginal(
  random: Random,
  topic: Topic,
  lang: Lang,
  mood: Mood,
  withLink: boolean,
  popular: readonly string[],
): Composed {
  const vocab = VOCABULARY[lang];
  const sentences = vocab.topics[topic.id];
  const parts: string[] = [];
  if (random.chance(0.12)) parts.push(random.pick(vocab.openers));
  parts.push(random.pick(sentences[mood]));
  if (random.chance(0.3)) {
    const second = random.pick(sentences[random.chance(0.5) ? mood : 'neutral']);
    if (second !== parts.at(-1)) parts.push(second);
  }
  if (random.chance(0.3)) parts.push(random.pick(vocab.reactions[mood]));
  let text = parts.join(vocab.joiner);
  if (random.chance(0.35)) {
    text += `${lang === 'ja' ? '' : ' '}${random.pick(EMOJI[mood])}`;
    if (random.chance(0.3)) text += random.pick(EMOJI[mood]);
  }
  if (random.chance(0.18)) {
    const handle =
      topic.mentions.length > 0 && random.chance(0.7) ? random.pick(topic.mentions) : random.pick(popular);
    text = random.chance(0.5) ? `${text} @${handle}` : `@${handle} ${text}`;
  }
  const linked = withLink || random.chance(0.08);
  if (linked) text += ` ${linkFor(random, topic, lang)}`;
  const tags = hashtags(random, topic, lang);
  if (tags.length > 0) text += `${random.chance(0.15) ? '\n\n' : ' '}${tags.join(' ')}`;
  return { text, linked };
}

export function composeReply(random: Random, topic: Topic, lang: Lang, mood: Mood, target: string): string {
  const vocab = VOCABULARY[lang];
  let body = random.pick(vocab.replies[mood]);
  if (random.chance(0.4)) body += `${vocab.joiner}${random.pick(vocab.topics[topic.id][mood])}`;
  return `@${target} ${body}`;
}

export function composeQuote(
  random: Random,
  topic: Topic,
  lang: Lang,
  mood: Mood,
  quoted: { handle: string; text: string },
): string {
  const vocab = VOCABULARY[lang];
  let comment = random.pick(vocab.quotes);
  if (random.chance(0.5)) comment += `${vocab.joiner}${random.pick(vocab.topics[topic.id][mood])}`;
  // Cut by code points: a cut inside an emoji's surrogate pair would leave invalid Unicode.
  const chars = Array.from(quoted.text);
  const snippet = chars.length > 90 ? `${chars.slice(0, 89).join('').trimEnd()}…` : quoted.text;
  return `${comment}\n\n“${snippet}” — @${quoted.handle}`;
}

export function composeRepost(platform: string, original: { handle: string; text: string }): string {
  return platform === 'x' ? `RT @${original.handle}: ${original.text}` : original.text;
}
