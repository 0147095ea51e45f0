-- The conversation dashboard counts words in a fixed hash sample of a broad query's posts. A post belongs to level L
-- (1 to 10) of the sample when (id × 40503) mod 65536 < 65536 >> L: level 1 holds about half of all posts, level 10
-- about 1 in 1,024. Indexed beside the full-text vector (an expression, so rows stay as wide as they were), one GIN
-- scan finds the matching posts of a level without visiting the others (server/social/insights/README.md).
CREATE FUNCTION "post_sample_marks"(id bigint) RETURNS smallint[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN trim_array('{1,2,3,4,5,6,7,8,9,10}'::smallint[], CASE
    WHEN (id * 40503) % 65536 >= 32768 THEN 10 WHEN (id * 40503) % 65536 >= 16384 THEN 9
    WHEN (id * 40503) % 65536 >= 8192 THEN 8 WHEN (id * 40503) % 65536 >= 4096 THEN 7
    WHEN (id * 40503) % 65536 >= 2048 THEN 6 WHEN (id * 40503) % 65536 >= 1024 THEN 5
    WHEN (id * 40503) % 65536 >= 512 THEN 4 WHEN (id * 40503) % 65536 >= 256 THEN 3
    WHEN (id * 40503) % 65536 >= 128 THEN 2 WHEN (id * 40503) % 65536 >= 64 THEN 1 ELSE 0 END);--> statement-breakpoint
DROP INDEX "posts_search_idx";--> statement-breakpoint
CREATE INDEX "posts_search_sample_idx" ON "posts" USING gin ("search",post_sample_marks(id));
