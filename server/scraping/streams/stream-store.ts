// A stream consumer's writes (server/scraping/streams: jetstream.ts, mastodon-stream.ts): a batch of events committed in
// one transaction — the posts that matched a tracked query (through the collection runner's upsert: validated rows, a
// row PostgreSQL refuses refused alone), the posts deleted at the source taken out (the runner's removeGone, the
// corpus's change path, so the analytics store's outbox drops them too), and the stream's cursor with its counts in
// stream_cursors. A crash before the commit loses the batch, which the consumer reads again from the committed cursor;
// a post read twice is stored once (the corpus is keyed by platform and external id).
import type pg from 'pg';
import type { ImportRow } from '@server/social/corpus/import/normalise';
import type { Refusal } from '../prepare';
import { inTransaction } from '../run-rows';
import { removeGone, upsertPage } from '../runner';

export interface StreamBatch {
  platform: 'bluesky' | 'mastodon';
  /** The posts to store (each matched at least one tracked query), with their keys at the source. */
  rows: ImportRow[];
  refs: string[];
  /** The posts deleted at the source: their external ids, or with `local` the instance's own status ids. */
  gone: string[];
  /**
   * Mastodon: the instance whose own status ids `gone` names (its `delete` events carry no URI), and each row's id
   * there (by index), kept in mastodon_status_ids so that a later delete finds the post.
   */
  local?: { instance: string; ids: (string | undefined)[] };
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
  /** The authors still known by DID alone (no stored profile has their handle yet): bluesky-handles.ts asks. */
  unresolved: string[];
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
async function keepStoredHandles(client: pg.PoolClient, rows: ImportRow[]): Promise<string[]> {
  const unknown = rows.filter((row) => row.author.handle === row.author.externalId);
  if (unknown.length === 0) return [];
  const { rows: stored } = await client.query<{ external_id: string; handle: string }>(
    `SELECT external_id, handle FROM profiles WHERE platform = 'bluesky' AND external_id = ANY($1::text[])`,
    [[...new Set(unknown.map((row) => row.author.externalId))]],
  );
  const handles = new Map(stored.map((profile) => [profile.external_id, profile.handle]));
  for (const row of unknown) row.author.handle = handles.get(row.author.externalId) ?? row.author.handle;
  return [
    ...new Set(
      unknown.filter((row) => row.author.handle === row.author.externalId).map((r) => r.author.externalId),
    ),
  ];
}

/** The instance's own id of each stored Mastodon status, for its delete event. */
async function keepStatusIds(
  client: pg.PoolClient,
  rows: ImportRow[],
  local: NonNullable<StreamBatch['local']>,
) {
  const known = rows.flatMap((row, i) => (local.ids[i] ? [[local.ids[i], row.externalId] as const] : []));
  if (known.length === 0) return;
  await client.query(
    `INSERT INTO mastodon_status_ids (instance, status_id, external_id)
     SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT (instance, status_id) DO NOTHING`,
    [local.instance, known.map(([id]) => id), known.map(([, key]) => key)],
  );
}

/** Takes the posts deleted at the source out of the corpus, those it holds; how many went. */
async function removeDeleted(client: pg.PoolClient, batch: StreamBatch): Promise<number> {
  if (batch.gone.length === 0) return 0;
  let keys = batch.gone;
  if (batch.local) {
    const { rows } = await client.query<{ external_id: string }>(
      `DELETE FROM mastodon_status_ids WHERE instance = $1 AND status_id = ANY($2::text[]) RETURNING external_id`,
      [batch.local.instance, batch.gone],
    );
    keys = rows.map((row) => row.external_id);
    if (keys.length === 0) return 0;
  }
  return removeGone(
    client,
    keys.map((key) => ({ platform: batch.platform, external_id: key })),
  );
}

/**
 * Forgets the Mastodon status ids whose post the corpus no longer holds (retention dropped it, or another path deleted
 * it): a delete of them would find nothing anyway. How many were forgotten.
 */
export async function forgetGoneStatusIds(pool: pg.Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM mastodon_status_ids m WHERE NOT EXISTS
       (SELECT FROM post_keys k WHERE k.platform = 'mastodon' AND k.external_id = m.external_id)`,
  );
  return rowCount ?? 0;
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
    const unresolved = await keepStoredHandles(client, batch.rows);
    const { inserted, updated } = await upsertPage(client, batch.rows, batch.refs, refused);
    if (batch.local) await keepStatusIds(client, batch.rows, batch.local);
    const removed = await removeDeleted(client, batch);
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
    return { inserted, updated, removed, refused, unresolved };
  });
}
