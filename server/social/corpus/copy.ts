// Bulk loading with COPY … FROM STDIN (text format): escaping, array literals, and streaming rows with backpressure.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from '@server/db/database';

const SPECIAL = /[\\\n\r\t]/;
const ARRAY_SPECIAL = /[\\"]/g;

/** A value in COPY's text format: backslash, newline, carriage return and tab escaped; null as \N. */
function copyValue(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value !== 'string') return String(value);
  if (!SPECIAL.test(value)) return value;
  return value.replace(/[\\\n\r\t]/g, (ch) =>
    ch === '\\' ? '\\\\' : ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : '\\t',
  );
}

/** A text[] as a PostgreSQL array literal ({"a","b"}), every element quoted, ready for copyValue. */
export function arrayLiteral(values: readonly string[]): string {
  if (values.length === 0) return '{}';
  return `{${values.map((v) => `"${v.replace(ARRAY_SPECIAL, '\\$&')}"`).join(',')}}`;
}

/** One line of COPY text input. */
export function copyLine(values: readonly (string | number | boolean | null | undefined)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : '\t') + copyValue(values[i]);
  return `${line}\n`;
}

const CHUNK = 256 * 1024;

/** Lines grouped into chunks of about 256 KB (fewer, larger writes). */
function* chunks(lines: Iterable<string>): Generator<string> {
  let buffer = '';
  for (const line of lines) {
    buffer += line;
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer) yield buffer;
}

/**
 * Streams lines into `COPY <target> FROM STDIN` on a client. Lines are produced as PostgreSQL consumes them, so
 * generating the next rows overlaps with the server storing the previous ones. Returns the rows copied.
 */
export async function copyLines(
  client: pg.PoolClient,
  target: string,
  lines: Iterable<string>,
): Promise<number> {
  const stream = client.query(copyFrom(`COPY ${target} FROM STDIN`));
  await pipeline(Readable.from(chunks(lines), { objectMode: false }), stream);
  return stream.rowCount;
}

/** The pg pool behind a Drizzle database (the corpus tools need a client of their own for COPY). */
export function poolOf(db: Db): pg.Pool {
  const client = (db as unknown as { $client?: pg.Pool }).$client;
  if (!client || typeof client.connect !== 'function') throw new Error('The database has no pg pool');
  return client;
}
