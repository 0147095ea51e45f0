-- Substring terms (server/social/query/terms.ts: Chinese, Japanese, Korean, Thai, emoji) through grams instead of
-- trigrams. The trigram index could not serve a term of fewer than 3 characters ('%노바%' read every post: 2.3 s at
-- 1M posts, where most words of these scripts are 1 or 2 characters), and it held every trigram of every post
-- (196 MB at 1M posts) to serve only these terms.
--
-- post_text_grams(text): the lower-cased text with each run of characters outside those scripts (and the symbol and
-- emoji blocks) made one space; then its characters and its pairs of neighbouring characters, but for the spaces
-- alone. A text containing a term has every gram of the term (a run inside the term, or at its edge, is inside a run
-- of the text, and becomes the same space next to the same characters), so post_text_grams(text) @>
-- post_text_query_grams(term) keeps every match, and ILIKE then keeps exactly the matches. Both sides are computed by
-- the same function, so which characters count only decides what the index can find, never what matches. The pairs
-- are those at even offsets and at odd ones, cut with regexp_replace: string functions only, no row per character.
-- Per post of the 1M corpus: 38 µs for Korean and Japanese, 7 µs for English, where a row per character filtered by
-- the same class took 126 and 66 µs. Repeated grams stay: GIN keeps each key once.
CREATE FUNCTION "post_text_grams"(t text) RETURNS text[]
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  s text := regexp_replace(lower(t), '[^ก-๿ᄀ-ᇿ\u2000-\u2bff\u3000-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe00-\ufe0f\uff65-\uff9f\U0001f000-\U0001faff\U00020000-\U0002ffff]+', ' ', 'g');
BEGIN
  IF btrim(s) = '' THEN
    RETURN '{}';
  END IF;
  RETURN array_remove(array_remove(
    regexp_split_to_array(s, '')
      || string_to_array(regexp_replace(s, '(..)', '\1' || chr(1), 'g'), chr(1))
      || string_to_array(regexp_replace(substr(s, 2), '(..)', '\1' || chr(1), 'g'), chr(1)),
    ' '), '');
END $$;--> statement-breakpoint
-- The grams of a term that its matches must have and that narrow them most: its pairs, or its one character.
CREATE FUNCTION "post_text_query_grams"(term text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN ARRAY(SELECT DISTINCT g FROM unnest(post_text_grams(term)) g
    WHERE char_length(g) = least(char_length(lower(term)), 2));--> statement-breakpoint
DROP INDEX "posts_text_trgm_idx";--> statement-breakpoint
CREATE INDEX "posts_text_grams_idx" ON "posts" USING gin (post_text_grams("text"));
