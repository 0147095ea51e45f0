-- Stream consumers (server/scraping/streams: Bluesky's Jetstream) keep where they resume here, by stream name: the
-- position of the last event committed (Jetstream's time_us, in microseconds), written in the same transaction as the
-- posts those events brought, with their counts and the last refused event's reason.
CREATE TABLE "stream_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"cursor_us" bigint NOT NULL,
	"events" bigint DEFAULT 0 NOT NULL,
	"imported" bigint DEFAULT 0 NOT NULL,
	"removed" bigint DEFAULT 0 NOT NULL,
	"refused" bigint DEFAULT 0 NOT NULL,
	"last_refusal" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
