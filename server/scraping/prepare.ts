// From a connector's items to rows the corpus takes: each row validated as the importer validates a file's row
// (src: server/social/corpus/import/schema.ts), its language detected when the source gives none, then normalised
// (tags, sentiment). What fails is refused with its reasons; the rest of the page lands.
import { detect } from 'tinyld';
import { normaliseRow, type ImportRow } from '@server/social/corpus/import/normalise';
import { validateRow } from '@server/social/corpus/import/schema';
import type { CollectedItem } from './connectors/types';

export interface Refusal {
  ref: string;
  reason: string;
  raw: string | null;
}

/** Shorter texts give tinyld too little to go on: left unknown (or to the script and author rules). */
const MIN_DETECT_LENGTH = 20;

/** The language of a text as a BCP 47 primary subtag, or undefined when tinyld cannot tell. */
function detectLanguage(text: string): string | undefined {
  // Links, mentions and hashtags are not the post's language (a post of emoji and a link would be guessed).
  const words = text.replace(/https?:\/\/\S+/g, ' ').replace(/[@#][\p{L}\p{N}_]+/gu, ' ');
  if (words.trim().length < MIN_DETECT_LENGTH) return undefined;
  const code = detect(words);
  return code ? code : undefined;
}

export function prepareItems(items: readonly CollectedItem[]) {
  const rows: ImportRow[] = [];
  const refused: Refusal[] = [];
  /** Posts deleted at the source. */
  const gone: { platform: string; external_id: string }[] = [];
  items.forEach((item, index) => {
    if ('reason' in item) {
      refused.push({ ref: item.ref, reason: item.reason, raw: item.raw });
      return;
    }
    if ('gone' in item) {
      gone.push(item.gone);
      return;
    }
    const row = { ...item.row };
    if (row.language === undefined && typeof row.text === 'string') {
      const language = detectLanguage(row.text);
      if (language) row.language = language;
    }
    const validated = validateRow(row);
    if (!validated.ok) {
      refused.push({ ref: item.ref, reason: validated.reasons.join('; '), raw: item.raw });
      return;
    }
    rows.push(normaliseRow(validated.row, index + 1));
  });
  return { rows, refused, gone };
}
