// The corpus writers' lock: every writer of posts, profiles, tags and the change feed takes it (corpus_changes_begin()
// and corpus_tags_changed() in SQL) and holds it to its commit, so the outbox's batches are in commit order.
import { sql } from 'drizzle-orm';

/** Takes the corpus lock for the transaction, waiting in turn behind those already waiting for it. */
export const CORPUS_LOCK = sql`SELECT pg_advisory_xact_lock(hashtext('murmur:corpus'))`;
