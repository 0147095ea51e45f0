// What a word or phrase of a query means: a term, a trailing wildcard, a #hashtag, an @mention or a field filter,
// and whether it is matched through the full-text vector or as a substring of the post's text.
import { PLATFORMS } from '@server/db/social-schema';
import { QUERY_LIMITS } from '@contract/social-query';
import { normaliseDomains } from '@contract/domains';
import {
  QUERY_FIELDS,
  type CasedNode,
  type LeafNode,
  type MaskNode,
  type PhraseNode,
  type ProximityLeaf,
  type QueryField,
} from './ast';
import { QuerySyntaxError } from './errors';
import { subredditValue } from './subreddit';

/**
 * - `words`: whole words (the store's: runs of letters, marks and digits, lower-cased), case-insensitive.
 * - `substring`: case-insensitive substring of the text (narrowed by the store's grams), for scripts written without
 *   spaces between words, which a word rule cannot split (Chinese, Japanese, Korean, Thai: Korean attaches particles
 *   to words), and for words made only of emoji or other symbols, which are no words.
 * - `none`: only ASCII punctuation, which matches nothing: refused.
 */
export type MatchMode = 'words' | 'substring' | 'none';

const UNSPACED_SCRIPT = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}]/u;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const NON_ASCII = /\P{ASCII}/u;

/** The text a word, phrase or wildcard is matched by (a wildcard's prefix). */
export const leafText = (node: ProximityLeaf) => (node.type === 'wildcard' ? node.prefix : node.value);

export function matchMode(text: string): MatchMode {
  if (UNSPACED_SCRIPT.test(text)) return 'substring';
  if (LETTER_OR_DIGIT.test(text)) return 'words';
  return NON_ASCII.test(text) ? 'substring' : 'none';
}

const HASHTAG = /^[\p{L}\p{N}\p{M}_]+$/u;
const HANDLE = /^[\p{L}\p{N}\p{M}_.-]+$/u;
const FIELD = /^([A-Za-z]+):/;
const LANGUAGE = /^[A-Za-z]{2,3}$/;
const COUNTRY = /^[A-Za-z]{2}$/;
/** `source:` is the platform; `url:` a linked site. (`site:` with a platform's name is the platform: fieldNode.) */
const FIELD_ALIASES: Record<string, QueryField> = { source: 'platform', url: 'site' };
const FIELD_LIST = [...QUERY_FIELDS, 'source', 'url'].map((field) => `${field}:`).join(', ');
/** A host name: letters, digits and hyphens in labels, at least two labels. */
const HOST = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u;

const fail = (message: string, column: number, length: number): never => {
  throw new QuerySyntaxError(message, column, length);
};

const nothingToSearch = (what: string, column: number, length: number) =>
  fail(
    `Nothing to search for in ${what} at column ${column} (combine terms with AND, OR, NOT in upper case)`,
    column,
    length,
  );

function noWildcard(word: string, column: number) {
  if (word.endsWith('*')) {
    fail(`A wildcard works on words only, not on "${word}" at column ${column}`, column, word.length);
  }
}

/** The kinds of post `is:` names (PostgreSQL's post_kind). */
const KINDS = ['original', 'reply', 'repost', 'quote'] as const;
const RANGE = /^\[\s*(\d{1,12}|\*)\s+TO\s+(\d{1,12}|\*)\s*\]$/i;

/** A range field's bounds (both included; null: none), from its canonical value `[1000 TO *]`. */
export function fieldRange(value: string): { min: number | null; max: number | null } {
  const [, min, max] = RANGE.exec(value)!;
  return { min: min === '*' ? null : Number(min), max: max === '*' ? null : Number(max) };
}

function rangeValue(raw: string, invalid: (what: string, hint: string) => never): string {
  const parts = RANGE.exec(raw);
  if (!parts) return invalid('range', 'as in [1000 TO *]: whole numbers or *, both ends included');
  const [min, max] = [parts[1]!, parts[2]!].map((bound) => (bound === '*' ? '*' : String(Number(bound))));
  if (min !== '*' && max !== '*' && Number(min) > Number(max))
    return invalid('range', 'its lower end is above its upper end');
  return `[${min} TO ${max}]`;
}

function fieldValue(field: QueryField, raw: string, column: number): string {
  const invalid = (what: string, hint: string) =>
    fail(`Invalid ${what} "${raw}" at column ${column} (${hint})`, column, raw.length);
  switch (field) {
    case 'is': {
      const kind = raw.toLowerCase();
      return (KINDS as readonly string[]).includes(kind)
        ? kind
        : invalid('kind', `one of ${KINDS.join(', ')}`);
    }
    case 'followers':
    case 'engagement':
      return rangeValue(raw, invalid);
    case 'author': {
      const handle = raw.startsWith('@') ? raw.slice(1) : raw;
      return HANDLE.test(handle)
        ? handle.toLowerCase()
        : invalid('author', 'a handle: letters, digits, _ . -');
    }
    case 'platform': {
      const platform = raw.toLowerCase();
      return (PLATFORMS as readonly string[]).includes(platform)
        ? platform
        : invalid('platform', `one of ${PLATFORMS.join(', ')}`);
    }
    case 'lang':
      return LANGUAGE.test(raw) ? raw.toLowerCase() : invalid('language', 'a code such as en, ko, ja or es');
    case 'country':
      return COUNTRY.test(raw)
        ? raw.toUpperCase()
        : invalid('country', 'a two-letter code such as US, KR or JP');
    case 'site':
      // A host or an address, as its registrable domain (how the posts' linked domains are stored).
      return normaliseDomains([raw])[0] ?? invalid('site', 'a domain such as bbc.co.uk, or an address');
    case 'instance': {
      const host = raw.toLowerCase();
      return HOST.test(host) ? host : invalid('instance', 'a server name such as mastodon.social');
    }
    case 'subreddit':
      return (
        subredditValue(raw) ??
        invalid('subreddit', 'a name such as android or r/android: 2 to 21 letters, digits and _')
      );
  }
}

function fieldNode(word: string, name: string, column: number): LeafNode {
  const key = name.toLowerCase();
  const raw = word.slice(name.length + 1);
  // `site:x`, `site:reddit`: a platform's name, as `site:` meant before it was a linked site.
  const platformSite = key === 'site' && (PLATFORMS as readonly string[]).includes(raw.toLowerCase());
  const field = platformSite
    ? 'platform'
    : (FIELD_ALIASES[key] ?? QUERY_FIELDS.find((known) => known === key));
  if (!field)
    return fail(`Unknown field "${name}:" at column ${column} (use ${FIELD_LIST})`, column, name.length + 1);
  const valueColumn = column + name.length + 1;
  if (raw === '') return fail(`Expected a value after "${name}:" at column ${column}`, column, word.length);
  noWildcard(word, column);
  return { type: 'field', field, value: fieldValue(field, raw, valueColumn) };
}

function tagNode(word: string, column: number): LeafNode {
  const isHashtag = word.startsWith('#');
  const body = word.slice(1);
  const what = isHashtag ? 'hashtag' : 'mention';
  if (body === '') return fail(`Expected a ${what} after "${word}" at column ${column}`, column, 1);
  noWildcard(word, column);
  if (!(isHashtag ? HASHTAG : HANDLE).test(body)) {
    const allowed = isHashtag ? 'letters, digits and _' : 'letters, digits, _ . -';
    return fail(`Invalid ${what} "${word}" at column ${column} (${allowed} only)`, column, word.length);
  }
  return { type: isHashtag ? 'hashtag' : 'mention', value: body.toLowerCase() };
}

function wildcardNode(word: string, column: number): LeafNode {
  const star = word.indexOf('*');
  if (star !== word.length - 1) {
    return fail(`"*" can only end a word, at column ${column + star}`, column + star, 1);
  }
  const prefix = word.slice(0, -1);
  const min = QUERY_LIMITS.minWildcardPrefix;
  if ([...prefix].length < min) {
    return fail(
      `A wildcard needs at least ${min} characters before "*", at column ${column}`,
      column,
      word.length,
    );
  }
  if (matchMode(prefix) === 'none') nothingToSearch(`"${word}"`, column, word.length);
  return { type: 'wildcard', prefix };
}

/** Letters, marks and digits: what a mask's characters other than `?` and a final `*` must be. */
const WORD_CHARS = /^[\p{L}\p{M}\p{N}]+$/u;

function maskNode(word: string, column: number): MaskNode {
  const star = word.indexOf('*');
  if (star >= 0 && star !== word.length - 1) {
    return fail(`"*" can only end a word, at column ${column + star}`, column + star, 1);
  }
  const body = star >= 0 ? word.slice(0, -1) : word;
  const first = body.indexOf('?');
  const min = QUERY_LIMITS.minWildcardPrefix;
  if ([...body.slice(0, first)].length < min) {
    return fail(`A "?" needs at least ${min} characters before it, at column ${column}`, column, word.length);
  }
  const letters = body.replaceAll('?', '');
  if (!WORD_CHARS.test(letters) || matchMode(letters) !== 'words') {
    return fail(
      `"?" works within one word of letters and digits, as in colo?r; not "${word}" at column ${column}`,
      column,
      word.length,
    );
  }
  return { type: 'mask', value: word };
}

/**
 * A mask as what it matches, lower-cased: the characters before its first `?` (every match starts with them: the
 * lexicon's range) and a regular expression over a whole word that RE2 (the store) and JavaScript (with the u flag)
 * read alike: `?` one code point, a final `*` any rest, the other characters themselves.
 */
export function maskPattern(mask: string): { prefix: string; regex: string } {
  const lower = mask.toLowerCase();
  const rest = lower.endsWith('*');
  const body = rest ? lower.slice(0, -1) : lower;
  const regex = [...body].map((char) => (char === '?' ? '.' : char)).join('');
  return { prefix: body.slice(0, body.indexOf('?')), regex: `^${regex}${rest ? '.*' : ''}$` };
}

/** A word token (not an operator) as a leaf of the tree, or a QuerySyntaxError saying what is wrong with it. */
export function wordNode(word: string, column: number): LeafNode {
  if (word.startsWith('#') || word.startsWith('@')) return tagNode(word, column);
  const field = FIELD.exec(word);
  if (field) return fieldNode(word, field[1]!, column);
  if (word.includes('?')) return maskNode(word, column);
  if (word.includes('*')) return wildcardNode(word, column);
  if (matchMode(word) === 'none') nothingToSearch(`"${word}"`, column, word.length);
  return { type: 'term', value: word };
}

/** A phrase token's text as a leaf: whitespace collapsed; a slop (`~n`) only for two words or more of spaced scripts. */
export function phraseNode(text: string, column: number, length: number, slop?: number): PhraseNode {
  const value = text.trim().split(/\s+/).join(' ');
  if (value === '') fail(`Empty phrase at column ${column}`, column, length);
  if (matchMode(value) === 'none') nothingToSearch('the phrase', column, length);
  if (slop === undefined) return { type: 'phrase', value };
  if (matchMode(value) !== 'words' || (value.match(/[\p{L}\p{M}\p{N}]+/gu)?.length ?? 0) < 2) {
    fail(
      `~${slop} at column ${column} needs a phrase of two words or more, of scripts written with spaces`,
      column,
      length,
    );
  }
  return { type: 'phrase', value, slop };
}

const ONE_WORD = /^[\p{L}\p{M}\p{N}]+$/u;

/** A case-sensitive term's text as a leaf: one word of a spaced script (letters, marks and digits), as typed. */
export function casedNode(text: string, column: number, length: number): CasedNode {
  if (!ONE_WORD.test(text) || matchMode(text) !== 'words') {
    fail(
      `A case-sensitive term holds one word of letters and digits, as in {NASA}; not "{${text}}" at column ${column}`,
      column,
      length,
    );
  }
  return { type: 'cased', value: text };
}
