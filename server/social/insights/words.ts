// Which words of the full-text vector the conversation dashboard lists: small stop-word lists for the corpus's
// languages (en, es, ko, ja) and a shape rule, applied in SQL to the distinct words after counting.
import { sql, type SQL } from 'drizzle-orm';

const EN = `the and for are but not you all any can had her was one our out get has him his how its let
  put say she too use that with have this will your from they them their there then than been were what when where
  which who whom why also just into about would could should these those other some such very only over more most
  much many any each both here after before because while being does did doing don doesn didn isn wasn aren weren
  won wouldn couldn shouldn haven hasn hadn yes yeah via off per our ours yours mine
  myself itself out again ever even still yet though`;
const ES = `que los las del por con una uno unos unas para como pero más mas sus les este esta esto estos
  estas ese esa eso esos esas son hay muy sin sobre también tambien todo toda todos todas está están estoy estás
  fue ser era han has hemos qué porque cuando donde quien nos mis tus ella ellos ellas usted aquí ahí así cada
  entre hasta desde mucho muchos poco otra otro otros tan solo sólo ya`;
const KO = `진짜 정말 너무 그리고 하지만 그냥 이거 저거 그거 이제 완전 약간 우리 저는 나는 제가 내가 있어요 없어요
  있는 없는 하는 이런 그런 저런 같아요 같은 합니다 했어요 입니다 그래서 근데 그런데 그럼 이번 다시 아직 모두 많이 조금`;
const JA = `これ それ あれ この その あの です ます でした ました する した して いる ある こと もの ない なる よう
  から まで けど でも 本当 とても ちょっと やっぱり みんな 今日 今回 なんか ください`;

/** Lower case, as the vector holds words. */
export const STOP_WORDS: readonly string[] = [
  ...new Set([EN, ES, KO, JA].flatMap((list) => list.split(/\s+/).filter(Boolean))),
];

export const WORD_RULE =
  'words are those of the full-text vector (whole words in lower case; Chinese, Japanese and Korean text is split ' +
  'at spaces and punctuation only), counted once per post; left out: stop words (small lists for English, ' +
  'Spanish, Korean and Japanese), words without a letter, links and host names (with "/", "." or "@"), and words ' +
  'shorter than 3 characters in Latin script or 2 in other scripts';

/** A letter of a script beyond Latin (U+0250 onwards): such words need 2 characters, Latin ones 3. */
const BEYOND_LATIN = '[^\\x01-\\u024F]';
const LETTER = '[A-Za-z]|[^\\x01-\\x7F]';
const LINK = '[/.@]';

/** The rule as a SQL condition on the word `w`. */
export function keptWord(w: SQL): SQL {
  return sql`(${w} !~ ${LINK} AND ${w} ~ ${LETTER}
    AND char_length(${w}) >= CASE WHEN ${w} ~ ${BEYOND_LATIN} THEN 2 ELSE 3 END
    AND NOT ${w} = ANY(${sql.param(STOP_WORDS)}::text[]))`;
}
