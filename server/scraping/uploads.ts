// Uploaded corpus files (NDJSON or CSV), kept in SCRAPING_UPLOAD_DIR until their job is deleted: the upload job's
// run imports the file with the corpus importer (server/social/corpus/import). A worker in a separate process
// (npm run worker) must see the same directory.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { pipeline } from 'node:stream/promises';

export const uploadPath = (dir: string, id: string, format: 'ndjson' | 'csv') => join(dir, `${id}.${format}`);

/** Writes the request body to the upload directory; at most maxBytes (larger uploads are removed and refused). */
export async function saveUpload(
  dir: string,
  id: string,
  format: 'ndjson' | 'csv',
  body: Readable,
  maxBytes: number,
): Promise<number> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = uploadPath(dir, id, format);
  let bytes = 0;
  try {
    await pipeline(
      body,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          bytes += chunk.length;
          if (bytes > maxBytes) throw new UploadTooLargeError();
          yield chunk;
        }
      },
      createWriteStream(path, { mode: 0o600 }),
    );
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return bytes;
}

export class UploadTooLargeError extends Error {}

/**
 * A route's preParsing hook: a body whose Content-Length is over the limit is refused at once (413), before any of it
 * is read, and its connection closed after the answer rather than drained of bytes nobody wants. A body without a
 * length (chunked) is counted as it arrives instead (saveUpload).
 */
export const refuseDeclaredTooLarge =
  (maxBytes: number, refusal: () => Error): preParsingHookHandler =>
  (request, reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (!(declared > maxBytes)) return done(null, payload);
    reply.header('connection', 'close');
    done(refusal());
  };

/** Whether a request's body ended because its client closed the connection before sending all of it. */
export const clientWentAway = (request: IncomingMessage) => request.destroyed && !request.complete;

/** SCRAPING_UPLOAD_DIR, else DATA_DIR/uploads (absolute DATA_DIR as the server resolved it, when given). */
export function uploadDirOf(config: { SCRAPING_UPLOAD_DIR?: string; DATA_DIR: string }, dataDir?: string) {
  return resolve(config.SCRAPING_UPLOAD_DIR ?? join(dataDir ?? config.DATA_DIR, 'uploads'));
}
