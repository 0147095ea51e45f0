// Generates the Murmur synthetic corpus (the repo's own generator, server/social/corpus/generate/plan.ts, read-only
// import) into TSV files for the engines: posts with PostgreSQL-'simple'-like lexemes (approximation, see tokens()),
// plus CJK grams (unspaced scripts: each char and each neighbouring pair, prefixed "\x01", like post_text_grams).
// Usage: tsx --tsconfig /work/main/tsconfig.json gen.mts N [seed]
import { createWriteStream } from 'node:fs';
import { planCorpus } from '../../server/social/corpus/generate/plan.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const seed = Number(process.argv[3] ?? 42);
const END = Date.UTC(2026, 10, 1);
const plan = planCorpus({ seed, posts: N, days: 180, end: END });
const PAIRS = process.argv.includes('--pairs');
const out = `/work/wt/analytics-lab/data/${N}${PAIRS ? 'p' : ''}`;

const UNSPACED = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}]/u;
const URL_RE = /https?:\/\/[^\s]+/gu;
const WORD_RE = /[\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*(?:\.[\p{L}\p{N}]+)*/gu;

/** An approximation of to_tsvector('simple', text) lexemes (tsvector_to_array: distinct). */
export function tokens(text: string): string[] {
  const set = new Set<string>();
  let t = text.toLowerCase();
  t = t.replace(URL_RE, (m) => {
    const url = m.replace(/[.,!?;:…]+$/u, '').replace(/^https?:\/\//, '');
    const slash = url.indexOf('/');
    set.add(url);
    if (slash > 0) {
      set.add(url.slice(0, slash));
      set.add(url.slice(slash));
    }
    return ' ';
  });
  for (const m of t.matchAll(WORD_RE)) {
    const w = m[0];
    if (w.includes('.')) {
      // host-like (a.b.c): PostgreSQL's host token when it has letters around dots, else version/float
      set.add(w);
      continue;
    }
    set.add(w);
    if (w.includes('-')) for (const part of w.split('-')) set.add(part);
  }
  // CJK grams
  for (const run of t.match(/[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}]+/gu) ?? []) {
    const chars = [...run];
    for (let i = 0; i < chars.length; i++) {
      set.add('\x01' + chars[i]);
      if (i + 1 < chars.length) set.add('\x01' + chars[i] + chars[i + 1]);
    }
  }
  return [...set];
}

const clean = (s: string) => s.replace(/[\t\n\r\\]/g, ' ');
const profiles = createWriteStream(`${out}-profiles.tsv`);  // (identical to the base corpus's)
let buf = '';
for (const p of plan.profiles) {
  buf += `${p.index + 1}\t${p.platform}\t${clean(p.handle)}\t${p.followers}\t${p.country ?? ''}\n`;
  if (buf.length > 1 << 20) { profiles.write(buf); buf = ''; }
}
profiles.end(buf);

const posts = createWriteStream(`${out}-posts.tsv`);
buf = '';
let i = 0, tokTotal = 0;
const started = Date.now();
for (const p of plan.posts()) {
  i += 1;
  const toks = tokens(p.text);
  tokTotal += toks.length;
  for (const h of p.hashtags) toks.push('\x02' + h); // hashtags as their own tokens
  if (PAIRS) {
    // adjacent lexeme pairs in text order (URLs left out): a two-word phrase is one token, positions as PostgreSQL counts them
    const seq = [...p.text.toLowerCase().replace(URL_RE, ' ').matchAll(WORD_RE)].map((m) => m[0]);
    const pairs = new Set();
    for (let j = 0; j + 1 < seq.length; j++) pairs.add('\x03' + seq[j] + '\x04' + seq[j + 1]);
    toks.push(...pairs);
  }
  buf += `${i}\t${p.postedAt}\t${p.authorIndex + 1}\t${p.platform}\t${p.language}\t${p.kind}\t${p.media}\t${p.likes}\t${p.comments}\t${p.shares}\t${p.sentiment}\t${p.sentimentLabel}\t${toks.join(' ').replace(/[\t\n\r\\]/g, '')}\t${clean(p.text)}\n`;
  if (buf.length > 4 << 20) {
    if (!posts.write(buf)) await new Promise((r) => posts.once('drain', r));
    buf = '';
  }
  if (i % 1_000_000 === 0) console.error(`${i} posts, ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
posts.end(buf);
await new Promise((r) => posts.on('finish', r));
console.error(`done ${N} posts in ${((Date.now() - started) / 1000).toFixed(1)} s, ${(tokTotal / N).toFixed(1)} lexemes/post, ${plan.profiles.length} profiles`);
