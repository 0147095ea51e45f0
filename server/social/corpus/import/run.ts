// Imports an NDJSON or CSV file into the corpus: streams it, validates each row, upserts good rows in batches (one
// transaction each) and collects the bad ones with their line and reason.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type pg from 'pg';
import { coerceCsvRecord, normaliseRow, type ImportRow } from './normalise';
import { FileFormatError, readCsv, readNdjson, type SourceRecord } from './read';
import { validateRow } from './schema';
import { writeBatch, type BatchResult } from './write';

export type ImportFormat = 'ndjson' | 'csv';

export interface RejectedRow {
  line: number;
  reason: string;
  raw?: string;
}

/**
 * Rows per transaction unless the caller says otherwise: 5,000 imported 16 % faster than 1,000, and 20,000 about 10 %
 * faster than 5,000 into both stores (docs/analytics-engine.md, "Ingest"). A batch holds the corpus lock while it is
 * written (about 4 s at 20,000 rows), so a collector's page waits that long at most.
 */
export const DEFAULT_IMPORT_BATCH = 20_000;

export interface ImportOptions {
  format?: ImportFormat;
  /** Rows per transaction (default DEFAULT_IMPORT_BATCH). */
  batchSize?: number;
  onRejected?: (row: RejectedRow) => void;
  /** Bytes read so far, of the file's size. */
  onProgress?: (bytes: number, size: number) => void;
}

export interface ImportSummary {
  /** Rows read (good and bad; blank lines are not rows). */
  rows: number;
  inserted: number;
  updated: number;
  /** Rows identical to what is stored (a repeated import), or repeated within the file. */
  unchanged: number;
  rejected: number;
  elapsedMs: number;
}

/** The file could not be read at all (missing, unreadable, unknown format, unusable header): exit code 1. */
export class ImportFileError extends Error {}

function formatOf(path: string, given?: string): ImportFormat {
  const format = (given ?? extname(path).slice(1)).toLowerCase();
  if (format === 'ndjson' || format === 'jsonl' || format === 'json') return 'ndjson';
  if (format === 'csv') return 'csv';
  throw new ImportFileError(
    given
      ? `Unknown format "${given}": use ndjson or csv`
      : `Cannot tell the format of ${path} from its extension: use .ndjson/.jsonl or .csv, or pass --format`,
  );
}

/**
 * A statement refused because of the rows it carried (SQLSTATE classes 21 cardinality, 22 data exception,
 * 23 integrity constraint, 54 program limit such as an index row too large): the batch is split until the bad rows
 * are alone, and they are rejected. Anything else — a lost connection, PostgreSQL shutting down or crashing, a full
 * disk — is no row's fault: the import stops with that error rather than rejecting every row after it.
 */
export function isRowError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(21|22|23|54)/.test(code);
}

export function dbMessage(error: unknown): string {
  const e = error as { message?: string; detail?: string };
  return `could not be stored: ${e.message ?? String(error)}${e.detail ? ` (${e.detail})` : ''}`;
}

export async function importCorpus(
  pool: pg.Pool,
  path: string,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const started = performance.now();
  const format = formatOf(path, options.format);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ImportFileError(`${path} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  const summary: ImportSummary = {
    rows: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    elapsedMs: 0,
  };
  const reject = (row: RejectedRow) => {
    summary.rejected++;
    options.onRejected?.(row);
  };
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_IMPORT_BATCH);
  const client = await pool.connect();
  // Why the connection failed (PostgreSQL's own words), rather than pg's "not queryable" of the statements after it.
  let lost: Error | undefined;
  const onLost = (error: Error) => (lost ??= error);
  client.on('error', onLost);
  let batch: ImportRow[] = [];
  const add = (result: BatchResult, rows: number) => {
    summary.inserted += result.inserted;
    summary.updated += result.updated;
    // Rows repeated within a batch count as unchanged (the last one is stored).
    summary.unchanged += rows - result.inserted - result.updated;
  };
  /**
   * Stores rows; a batch PostgreSQL refuses is split in halves, each stored or split again, down to the bad rows alone
   * (rejected with PostgreSQL's reason): the good rows are kept in about 2·log2(batch) transactions per bad row rather
   * than one per row of the batch.
   */
  const write = async (rows: ImportRow[]): Promise<void> => {
    try {
      add(await writeBatch(client, rows), rows.length);
    } catch (error) {
      if (!isRowError(error)) throw error;
      if (rows.length === 1) {
        reject({ line: rows[0]!.line, reason: dbMessage(error) });
        return;
      }
      const half = Math.ceil(rows.length / 2);
      await write(rows.slice(0, half));
      await write(rows.slice(half));
    }
  };
  // One batch is written while the next is read and validated (the database and this process work in parallel).
  let inflight: Promise<void> = Promise.resolve();
  let failure: Error | undefined;
  const flush = async () => {
    await inflight;
    const rows = batch;
    batch = [];
    inflight = rows.length > 0 ? write(rows) : Promise.resolve();
    // Awaited by the next flush; until then its failure is held here, not reported as an unhandled rejection.
    inflight.catch((error: unknown) => (failure = error instanceof Error ? error : new Error(String(error))));
  };
  try {
    const records: AsyncGenerator<SourceRecord> = format === 'csv' ? readCsv(stream) : readNdjson(stream);
    for await (const record of records) {
      summary.rows++;
      if (record.error !== undefined) {
        reject({ line: record.line, reason: record.error, raw: record.raw });
        continue;
      }
      const value =
        format === 'csv' ? coerceCsvRecord(record.value as Record<string, string | undefined>) : record.value;
      const validated = validateRow(value);
      if (!validated.ok) {
        reject({ line: record.line, reason: validated.reasons.join('; '), raw: record.raw });
        continue;
      }
      batch.push(normaliseRow(validated.row, record.line));
      if (batch.length >= batchSize) {
        await flush();
        options.onProgress?.(stream.bytesRead, size);
      }
    }
    await flush();
    await inflight;
    options.onProgress?.(size, size);
  } catch (error) {
    if (error instanceof FileFormatError || (error as { cause?: unknown }).cause instanceof FileFormatError) {
      throw new ImportFileError(error instanceof FileFormatError ? error.message : (error as Error).message);
    }
    const errno = error as NodeJS.ErrnoException;
    // A write that failed is the database's socket (EPIPE, ECONNRESET as PostgreSQL dies), not the file: it can come
    // before the client's own 'error' event.
    const socketLost = errno.code !== undefined && errno.syscall === 'write';
    if (errno.code !== undefined && errno.syscall && !socketLost) {
      throw new ImportFileError(`Cannot read ${path}: ${errno.message}`);
    }
    if (lost || socketLost) {
      throw new Error(`the connection to PostgreSQL was lost (${(lost ?? errno).message})`, { cause: error });
    }
    throw error;
  } finally {
    stream.destroy();
    await inflight.catch(() => {});
    client.off('error', onLost);
    // A client whose connection failed is discarded, not returned to the pool.
    client.release(failure ?? lost);
  }
  summary.elapsedMs = performance.now() - started;
  return summary;
}
