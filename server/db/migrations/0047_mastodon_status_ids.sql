-- The Mastodon statuses a stream stored, by the instance's own id (issue 54): an instance's `delete` event names that
-- id, not the status's URI the corpus keys by (posts.external_id), so the stream finds the post to take out here.
-- Written with the post in the stream's batch transaction, removed with it (server/scraping/streams/stream-store.ts).
CREATE TABLE "mastodon_status_ids" (
	"instance" text NOT NULL,
	"status_id" text NOT NULL,
	"external_id" text NOT NULL,
	CONSTRAINT "mastodon_status_ids_pkey" PRIMARY KEY("instance","status_id")
);
