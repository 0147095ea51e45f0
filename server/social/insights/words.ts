// Which of a post's words the conversation dashboard lists. The words are the store's (layout 11): maximal runs of
// letters, combining marks and digits of the lower-cased text, once its links are taken out (LINK_RUN in
// server/analytics/layout.ts). Of those, each post's stop words by its own language are left out (stopwords-iso's list
// for each language a workspace can analyse, with a few of social media's own), and a shape rule is applied to the
// distinct words after counting. The analytics store applies both (STORE_WORD_RULE).
import { createRequire } from 'node:module';
import { workspaceLanguages } from '@contract/workspaces';

const require = createRequire(import.meta.url);
const ISO = require('stopwords-iso') as Record<string, string[]>;

/** What posts say without saying anything, beyond stopwords-iso (its lists are of edited prose). */
const OWN: Partial<Record<(typeof workspaceLanguages)[number], string>> = {
  en: `yeah hadn`,
  ko: `진짜 정말 너무 그리고 하지만 그냥 이거 저거 그거 이제 완전 약간 우리 저는 나는 제가 내가 있어요 없어요
    있는 없는 하는 이런 그런 저런 같아요 같은 합니다 했어요 입니다 그래서 근데 그런데 그럼 이번 다시 아직 모두 많이 조금`,
  ja: `これ それ あれ この その あの です ます でした ました する した して いる ある こと もの ない なる よう
    から まで けど でも 本当 とても ちょっと やっぱり みんな 今日 今回 なんか ください`,
};

/** Per language, in lower case as the store's words are. */
export const STOP_WORDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  workspaceLanguages.map((language) => [
    language,
    [
      ...new Set(
        [...(ISO[language] ?? []), ...(OWN[language]?.split(/\s+/) ?? [])]
          .map((word) => word.toLowerCase())
          .filter(Boolean),
      ),
    ],
  ]),
);

/** The lists as two parallel arrays (language, word), the form the store is given them in. */
const STOP_LANGUAGES = Object.entries(STOP_WORDS).flatMap(([language, words]) => words.map(() => language));
const STOP_WORD_LIST = Object.values(STOP_WORDS).flat();

export const WORD_RULE =
  'words are the runs of letters, accents and digits of the text in lower case (Chinese, Japanese and Korean text is ' +
  'split at spaces, punctuation and symbols only), counted once per post; left out: links and host names (a run ' +
  'of text up to the spaces around it holding "://", or "/", "." or "@" between two letters or digits), the stop ' +
  "words of the post's language (stopwords-iso's lists, with a few more for English, Korean and Japanese; a post " +
  "of unknown language loses every language's), words without a letter, and words shorter than 3 characters in " +
  'Latin script or 2 in other scripts';

/**
 * The rule for the analytics store (server/analytics/figures/conversation.ts, which binds each part as a parameter):
 * the stop words as two parallel arrays, and the shape rule's regular expressions in re2's syntax (ClickHouse matches
 * UTF-8 text by code points): a word is left out when it holds `link`, or no `letter`; a word with a letter of a
 * script `beyondLatin` (U+0250 onwards) needs 2 characters, others 3. Since the store splits words itself (layout 11:
 * runs of letters, marks and digits, server/query/README.md) no word holds `/`, `.` or `@`: the links and host names
 * are left out before the split instead, each run between spaces holding `://` or one of those characters between
 * two letters or digits (server/analytics/layout.ts, LINK_RUN), and `link` finds nothing more.
 */
export const STORE_WORD_RULE = {
  stopLanguages: STOP_LANGUAGES,
  stopWords: STOP_WORD_LIST,
  link: '[/.@]',
  letter: '[A-Za-z]|[^\\x{01}-\\x{7F}]',
  beyondLatin: '[^\\x{01}-\\x{024F}]',
};
