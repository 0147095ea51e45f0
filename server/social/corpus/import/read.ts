// Streaming readers: records of an NDJSON or CSV file with the line each starts on, without holding the file in
// memory. Every line must be UTF-8: a line with invalid bytes is reported (with the byte and its column) and skipped.
import { isUtf8 } from 'node:buffer';
import { Transform, type Readable } from 'node:stream';
import { parse as parseCsv, type CsvError } from 'csv-parse';
import { IMPORT_FIELDS, REQUIRED_FIELDS } from './schema';

export interface SourceRecord {
  line: number;
  /** The parsed value (a JSON value, or a CSV record as strings); absent when `error` is set. */
  value?: unknown;
  /** Why the line could not be read (invalid UTF-8, invalid JSON, malformed CSV). */
  error?: string;
  /** The text of the line(s), for the errors file. */
  raw?: string;
}

/** A problem with the whole file (exit code 1): an unusable CSV header. */
export class FileFormatError extends Error {}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const lenient = new TextDecoder('utf-8');

/** Offset and value of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): { offset: number; byte: number } | undefined {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return { offset: i, byte: b };
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const low = k === 1 && b === 0xe0 ? 0xa0 : k === 1 && b === 0xf0 ? 0x90 : 0x80;
      const high = k === 1 && b === 0xed ? 0x9f : k === 1 && b === 0xf4 ? 0x8f : 0xbf;
      if (c === undefined || c < low || c > high) return { offset: i, byte: b };
    }
    i += need + 1;
  }
  return undefined;
}

function utf8Problem(bytes: Uint8Array): string | undefined {
  if (isUtf8(bytes)) return undefined;
  const bad = firstInvalidUtf8(bytes);
  const where = bad
    ? `: byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')} at byte ${bad.offset + 1}`
    : '';
  return `not valid UTF-8${where} (the file must be UTF-8 encoded)`;
}

/** Physical lines of a byte stream (LF or CRLF), with their 1-based number; the BOM of line 1 is dropped. */
async function* lines(stream: Readable): AsyncGenerator<{ number: number; bytes: Buffer }> {
  let carry: Buffer = Buffer.alloc(0);
  let number = 0;
  const emit = (bytes: Buffer) => {
    number++;
    let line = bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes;
    if (number === 1 && line.subarray(0, 3).equals(BOM)) line = line.subarray(3);
    return { number, bytes: line };
  };
  for await (const chunk of stream) {
    let data = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    let newline = data.indexOf(0x0a);
    while (newline !== -1) {
      yield emit(data.subarray(0, newline));
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    carry = Buffer.from(data);
  }
  if (carry.length > 0) yield emit(carry);
}

export async function* readNdjson(stream: Readable): AsyncGenerator<SourceRecord> {
  for await (const { number, bytes } of lines(stream)) {
    const problem = utf8Problem(bytes);
    const raw = lenient.decode(bytes);
    if (problem) {
      yield { line: number, error: problem, raw };
      continue;
    }
    if (raw.trim() === '') continue;
    try {
      yield { line: number, value: JSON.parse(raw) as unknown, raw };
    } catch (error) {
      yield { line: number, error: `invalid JSON: ${(error as Error).message}`, raw };
    }
  }
}

/** Checks each physical line's UTF-8 and remembers the bad ones, passing the bytes through to the CSV parser. */
class Utf8LineCheck extends Transform {
  readonly bad = new Map<number, string>();
  private line = 1;
  private carry: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    let newline = data.indexOf(0x0a);
    while (newline !== -1) {
      this.check(data.subarray(0, newline));
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    this.carry = Buffer.from(data);
    this.push(chunk);
    done();
  }

  override _flush(done: () => void) {
    if (this.carry.length > 0) this.check(this.carry);
    done();
  }

  private check(bytes: Buffer) {
    const problem = utf8Problem(bytes);
    if (problem) this.bad.set(this.line, problem);
    this.line++;
  }
}

/** Validates a CSV header: known column names only, the required ones present. */
function checkCsvHeader(columns: string[]): string[] {
  const names = columns.map((c) => c.trim());
  const unknown = names.filter((n) => !(IMPORT_FIELDS as string[]).includes(n));
  if (unknown.length > 0) {
    throw new FileFormatError(
      `Unknown CSV column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; ` +
        `the columns are: ${IMPORT_FIELDS.join(', ')}`,
    );
  }
  const missing = REQUIRED_FIELDS.filter((n) => !names.includes(n));
  if (missing.length > 0) throw new FileFormatError(`Missing CSV column(s): ${missing.join(', ')}`);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new FileFormatError(`Duplicate CSV column "${duplicate}"`);
  return names;
}

export async function* readCsv(stream: Readable): AsyncGenerator<SourceRecord> {
  const check = new Utf8LineCheck();
  const skipped: SourceRecord[] = [];
  const parser = parseCsv({
    bom: true,
    columns: (header: string[]) => {
      if (check.bad.has(1)) throw new FileFormatError(`The CSV header (line 1) is ${check.bad.get(1)}`);
      return checkCsvHeader(header);
    },
    skip_empty_lines: true,
    info: true,
    raw: true,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined, raw: string | undefined) => {
      const line = (error as { lines?: number } | undefined)?.lines ?? 0;
      skipped.push({ line, error: `malformed CSV: ${error?.message ?? 'unreadable record'}`, raw });
      return undefined;
    },
  });
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(check).pipe(parser);
  for await (const item of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
    raw: string;
  }>) {
    const span = item.raw.replace(/\r?\n$/, '').split('\n').length - 1;
    const end = item.info.lines;
    const start = end - span;
    // Malformed records are reported by the parser as it meets them, possibly before earlier records reach here.
    while (skipped.length > 0 && skipped[0]!.line < start) yield skipped.shift()!;
    let problem: string | undefined;
    for (let l = start; l <= end && !problem; l++) problem = check.bad.get(l);
    if (problem) {
      yield { line: start, error: problem, raw: item.raw };
      continue;
    }
    yield { line: start, value: item.record, raw: item.raw };
  }
  while (skipped.length > 0) yield skipped.shift()!;
}
