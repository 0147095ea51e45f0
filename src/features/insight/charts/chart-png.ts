// A chart as a PNG file that says what it shows, as the CSV files do: a header band above the chart with its title, the
// query, the range and the workspace's time zone, on white (the canvas itself is transparent: alone it would show black
// or checkered behind the lines in many viewers). The same lines are in the file's metadata (iTXt chunks, UTF-8), for
// a program or a search that reads them.
import type { CsvMeta } from '../csv';
import { formatDateTimeRange } from '@/lib/date-time';

export interface PngHeader {
  /** "Conversation – Hashtags" */
  title: string;
  /** The further lines: the query, the range and zone. */
  lines: readonly string[];
  /** Metadata as keyword → text (PNG's Title, Description, …). */
  metadata: ReadonlyArray<readonly [string, string]>;
}

/** What a chart's PNG says above the chart, and in its metadata: as the CSV's comment lines. */
export function pngHeader(dashboard: string, title: string, meta: Omit<CsvMeta, 'title'>): PngHeader {
  const page = dashboard.charAt(0).toUpperCase() + dashboard.slice(1).replace(/-/g, ' ');
  const heading = `${page} – ${title}`;
  const query = meta.query ?? null;
  const range = formatDateTimeRange(meta.range, meta.timeZone);
  return {
    title: heading,
    lines: [
      query === null ? 'Query: none (every post)' : `Query: ${query}`,
      `Range: ${range}`,
      `Time zone: ${meta.timeZone}`,
    ],
    metadata: [
      ['Title', `Murmur – ${heading}`],
      ['Description', meta.counted],
      ['Query', query ?? ''],
      ['Range', `${meta.range.from} to ${meta.range.to} (UTC, from inclusive, to exclusive)`],
      ['Time zone', meta.timeZone],
      ['Software', 'Murmur'],
    ],
  };
}

const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
const TEXT = '#1c1b29';
const MUTED = '#5d5b73';

/** The chart under its header, as a PNG data URL (the source canvas's pixel density kept). */
export function chartPng(source: HTMLCanvasElement, header: PngHeader): string {
  const scale = source.clientWidth ? source.width / source.clientWidth : 1;
  const pad = Math.round(12 * scale);
  const titleSize = Math.round(16 * scale);
  const lineSize = Math.round(12 * scale);
  const copy = document.createElement('canvas');
  const context = copy.getContext('2d');
  if (!context) return source.toDataURL('image/png');
  // A chart narrower than the header's text is given room: the text wraps within the width, never cut off.
  copy.width = Math.max(source.width, Math.round(320 * scale));
  const maxWidth = copy.width - 2 * pad;
  context.font = `600 ${titleSize}px ${FONT}`;
  const titleLines = wrap(context, header.title, maxWidth);
  context.font = `${lineSize}px ${FONT}`;
  const otherLines = header.lines.flatMap((line) => wrap(context, line, maxWidth));
  const titleStep = Math.round(titleSize * 1.3);
  const lineStep = Math.round(lineSize * 1.45);
  const band = pad + titleLines.length * titleStep + otherLines.length * lineStep + pad;
  copy.height = band + source.height;

  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, copy.width, copy.height);
  context.textBaseline = 'top';
  let y = pad;
  context.fillStyle = TEXT;
  context.font = `600 ${titleSize}px ${FONT}`;
  for (const line of titleLines) {
    context.fillText(line, pad, y);
    y += titleStep;
  }
  context.fillStyle = MUTED;
  context.font = `${lineSize}px ${FONT}`;
  for (const line of otherLines) {
    context.fillText(line, pad, y);
    y += lineStep;
  }
  context.drawImage(source, 0, band);
  return withMetadata(copy.toDataURL('image/png'), header.metadata);
}

/** `text` in lines no wider than `width`, broken between words (a word wider than the line is broken anywhere). */
function wrap(context: CanvasRenderingContext2D, text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/(?<=\s)/)) {
    const next = line + word;
    if (!line || context.measureText(next.trimEnd()).width <= width) {
      line = next;
      continue;
    }
    lines.push(line.trimEnd());
    line = word;
  }
  if (line) lines.push(line.trimEnd());
  return lines.flatMap((one) => breakLong(context, one, width));
}

function breakLong(context: CanvasRenderingContext2D, line: string, width: number): string[] {
  if (context.measureText(line).width <= width) return [line];
  const pieces: string[] = [];
  let piece = '';
  for (const char of line) {
    if (piece && context.measureText(piece + char).width > width) {
      pieces.push(piece);
      piece = '';
    }
    piece += char;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

// PNG metadata: iTXt chunks (keyword, no compression, UTF-8 text) inserted after IHDR.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function itxtChunk(keyword: string, text: string): Uint8Array {
  const encoder = new TextEncoder();
  // Keywords are 1–79 Latin-1 characters; ours are PNG's own (Title, Description, …).
  const data = [...encoder.encode(keyword), 0, 0, 0, 0, 0, ...encoder.encode(text)];
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(encoder.encode('iTXt'), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  return chunk;
}

function withMetadata(dataUrl: string, metadata: PngHeader['metadata']): string {
  const base64 = dataUrl.slice(dataUrl.indexOf(',') + 1);
  const png = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  // The signature (8 bytes), then IHDR: its length, type, 13 bytes of data and CRC.
  const afterHeader = 8 + 12 + 13;
  const chunks = metadata.map(([keyword, text]) => itxtChunk(keyword, text));
  const size = png.length + chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const out = new Uint8Array(size);
  out.set(png.subarray(0, afterHeader), 0);
  let at = afterHeader;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  out.set(png.subarray(afterHeader), at);
  let binary = '';
  for (let i = 0; i < out.length; i += 0x8000) binary += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return `data:image/png;base64,${btoa(binary)}`;
}
