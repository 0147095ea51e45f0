// A stream consumer's writes (server/scraping/streams/jetstream.ts): a batch of events committed in one transaction —
// the posts that matched a tracked query (through the collection runner's upsert: validated rows, a row PostgreSQL
// refuses refused alone), the posts deleted at the source taken out, and the stream's cursor with its counts in
// stream_cursors. A crash before the commit loses the batch, which the consumer reads again from the committed cursor;
// a post read twice is stored once (the corpus is keyed by platform and external id).
import type pg from 'pg';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import type { Refusal } from '../prepare';
import { inTransaction } from '../run-rows';
import { removeGone, upsertPage } from '../runner';

export interface StreamBatch {
  /** The posts to store (each matched at least one tracked query), with their keys at the source. */
  rows: ImportRow[];
  refs: string[];
  /** External ids of the posts deleted at the source. */
  gone: string[];
  /** Events refused (unreadable, or a post the corpus's rules refuse). */
  refused: Refusal[];
  /** Events read (new ones: not those of the replay overlap already committed). */
  events: number;
  /** The last event's `time_us`. */
  cursorUs: number;
  /** For each stored post, the tracked queries it matched and when it was posted (ISO 8601). */
  hits: StreamHit[];
}

interface StreamHit {
  queries: string[];
  postedAt: string;
}

/** What the tracked queries keep of a batch (their coverage: server/tracking), in the batch's transaction. */
export type StreamRecord = (client: pg.PoolClient, hits: readonly StreamHit[]) => Promise<void>;

export interface BatchResult {
  inserted: number;
  updated: number;
  removed: number;
  /** Refusals, the rows PostgreSQL refused included. */
  refused: Refusal[];
}

/** The position a stream resumes from (microseconds), or undefined before its first commit. */
export async function readCursor(pool: pg.Pool, name: string): Promise<number | undefined> {
  const { rows } = await pool.query<{ cursor_us: string }>(
    'SELECT cursor_us::text FROM stream_cursors WHERE name = $1',
    [name],
  );
  return rows[0] ? Number(rows[0].cursor_us) : undefined;
}

/**
 * Posts of authors the stream knows only by DID (it carries no handle) get the handle their stored profile has, so
 * that a stream's post does not replace a handle another source gave.
 */
async function keepStoredHandles(client: pg.PoolClient, rows: ImportRow[]) {
  const unknown = rows.filter((row) => row.author.handle === row.author.externalId);
  if (unknown.length === 0) return;
  const { rows: stored } = await client.query<{ external_id: string; handle: string }>(
    `SELECT external_id, handle FROM profiles WHERE platform = 'bluesky' AND external_id = ANY($1::text[])`,
    [[...new Set(unknown.map((row) => row.author.externalId))]],
  );
  const handles = new Map(stored.map((profile) => [profile.external_id, profile.handle]));
  for (const row of unknown) row.author.handle = handles.get(row.author.externalId) ?? row.author.handle;
}

export async function commitBatch(
  pool: pg.Pool,
  name: string,
  batch: StreamBatch,
  record?: StreamRecord,
): Promise<BatchResult> {
  if (!(batch.cursorUs > 0))
    throw new Error(`A batch of ${name} without a position (cursor ${batch.cursorUs}).`);
  return inTransaction(pool, async (client) => {
    const refused = [...batch.refused];
    await keepStoredHandles(client, batch.rows);
    const { inserted, updated } = await upsertPage(client, batch.rows, batch.refs, refused);
    const removed =
      batch.gone.length > 0
        ? await removeGone(
            client,
            batch.gone.map((id) => ({ platform: 'bluesky', external_id: id })),
          )
        : 0;
    await record?.(client, batch.hits);
    // The cursor never goes back: a batch of the replay overlap alone ends before the committed position.
    await client.query(
      `INSERT INTO stream_cursors (name, cursor_us, events, imported, removed, refused, last_refusal)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (name) DO UPDATE SET cursor_us = greatest(stream_cursors.cursor_us, excluded.cursor_us),
         events = stream_cursors.events + excluded.events, imported = stream_cursors.imported + excluded.imported,
         removed = stream_cursors.removed + excluded.removed, refused = stream_cursors.refused + excluded.refused,
         last_refusal = coalesce(excluded.last_refusal, stream_cursors.last_refusal), updated_at = now()`,
      [
        name,
        batch.cursorUs,
        batch.events,
        inserted + updated,
        removed,
        refused.length,
        refused.at(-1) ? `${refused.at(-1)!.ref}: ${refused.at(-1)!.reason}`.slice(0, 2_000) : null,
      ],
    );
    return { inserted, updated, removed, refused };
  });
}
