-- A post's month from its id: a post's page (POST /social/posts/detail) finds the post's posted_at here by id, then
-- reads only that month's partition of posts (by id alone it would probe every month's primary key). posted_at is in
-- the index so the look-up reads the index alone.
CREATE INDEX "post_keys_id_idx" ON "post_keys" USING btree ("id","posted_at");
