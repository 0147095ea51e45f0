// `npm run -s sentiment -- --lang xx`: reads one text a line on stdin and writes, for each, `label<TAB>sentiment` (in
// order), scored as the importer scores a post in that language: the trained model where it covers the language, the
// word list elsewhere (server/social/corpus/sentiment-model.ts). Without --lang, a post of unknown language.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { scoreSentiment } from '@server/social/corpus/sentiment-model';

const { values: args } = parseArgs({ options: { lang: { type: 'string' } } });

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const text of lines) {
  const { label, sentiment } = scoreSentiment(text, args.lang ?? null);
  process.stdout.write(`${label}\t${sentiment}\n`);
}
