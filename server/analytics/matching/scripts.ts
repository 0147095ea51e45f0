// Which scripts a post's grams are of, as a bit mask: what the store's `texts` table is ordered by, so that a
// substring term's text recheck reads only the texts of posts that have every script of the term's grams (a Korean
// term, the Hangul posts of the range) rather than every text of the range. The grams are PostgreSQL's
// (post_text_grams, migration 0011), which the store computes the same way (postGramsSql): their characters are those
// of the lower-cased text within these ranges. A post containing a term has every gram of the term, so its mask
// holds the term's: the same classes on both sides (scriptsSql in the store, scriptsOf here) are all that exactness
// needs; how the ranges are split only decides how much a recheck reads.

/** The classes, each a bit, as ranges of code points (together: the gram characters of migration 0011). */
export const SCRIPT_CLASSES: ReadonlyArray<ReadonlyArray<readonly [number, number]>> = [
  // Han: CJK ideographs, their extensions and compatibility ideographs.
  [
    [0x3400, 0x4dbf],
    [0x4e00, 0x9fff],
    [0xf900, 0xfaff],
    [0x20000, 0x2ffff],
  ],
  // Kana and CJK punctuation.
  [
    [0x3000, 0x30ff],
    [0x31f0, 0x31ff],
    [0xff65, 0xff9f],
  ],
  // Hangul: jamo, compatibility jamo, syllables.
  [
    [0x1100, 0x11ff],
    [0x3130, 0x318f],
    [0xa960, 0xa97f],
    [0xac00, 0xd7ff],
  ],
  // Thai.
  [[0x0e01, 0x0e7f]],
  // Symbols, variation selectors and emoji.
  [
    [0x2000, 0x2bff],
    [0xfe00, 0xfe0f],
    [0x1f000, 0x1faff],
  ],
];

const hex = (code: number) => `\\\\x{${code.toString(16).toUpperCase()}}`;

/** The classes' ranges as the inside of a re2 character class over UTF-8, in code points. */
const classRanges = (ranges: ReadonlyArray<readonly [number, number]>) =>
  ranges.map(([lo, hi]) => `${hex(lo)}-${hex(hi)}`).join('');

/**
 * A post's grams as PostgreSQL's post_text_grams (migration 0011) gives them, as a set (each once, in another order),
 * as a ClickHouse expression over `lowered`: PostgreSQL's lower(text). Each run of characters outside the classes
 * made one space, then its characters and its pairs of neighbouring characters but for the space alone. PostgreSQL
 * takes the pairs at even offsets and at odd ones (its odd length's last character alone, which is a character
 * gram already); ngrams(s, 2) gives every pair at once. The store computes them from the text it is given rather than
 * PostgreSQL computing them again for the change feed and writing each as a string (docs/analytics-engine.md, "The
 * grams computed by the store").
 */
export const postGramsSql = (lowered: string) => {
  const runs = `replaceRegexpAll(${lowered}, '[^${classRanges(SCRIPT_CLASSES.flat())}]+', ' ')`;
  return `arrayFilter(g -> g != ' ', arrayConcat(ngrams(${runs}, 1), ngrams(${runs}, 2)))`;
};

/**
 * The mask of a post's grams as a ClickHouse expression over `grams` (Array(String)): each class's bit where one of
 * the characters is of it. The regular expressions are re2's over UTF-8, written with code points only.
 */
export const scriptsSql = (grams: string) =>
  `toUInt8(${SCRIPT_CLASSES.map(
    (ranges, bit) => `match(arrayStringConcat(${grams}), '[${classRanges(ranges)}]') * ${1 << bit}`,
  ).join(' + ')})`;

/** The mask of the characters of `grams`, as scriptsSql computes it in the store. */
export function scriptsOf(grams: readonly string[]): number {
  let mask = 0;
  for (const gram of grams)
    for (const char of gram) {
      const code = char.codePointAt(0)!;
      SCRIPT_CLASSES.forEach((ranges, bit) => {
        if (ranges.some(([lo, hi]) => code >= lo && code <= hi)) mask |= 1 << bit;
      });
    }
  return mask;
}

/** Every mask (but 0) that holds `mask`: the posts' masks a term of that mask may be found in. */
export function masksHolding(mask: number): number[] {
  const masks: number[] = [];
  for (let m = 1; m < 1 << SCRIPT_CLASSES.length; m++) if ((m & mask) === mask) masks.push(m);
  return masks;
}
