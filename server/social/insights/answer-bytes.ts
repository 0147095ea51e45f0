// A dashboard's answer as the bytes that go on the wire: its JSON text, exactly as the route's response serializer
// writes it (the zod schema's encoding, then JSON.stringify), and that text compressed with brotli and gzip, each made
// once. The answer cache keeps these, so a cached answer is sent as it was stored: no parse, no check against the
// schema, no serialization and no compression per request, only a write of bytes already made. Compression runs on
// libuv's thread pool (zlib's asynchronous calls), never on the event loop the light requests share.
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The API's compression, on the fly (server/app.ts) or made once here: the same threshold, levels and encodings. */
export const API_COMPRESSION = {
  /** Answers smaller than this go as they are: the headers would eat most of the saving. */
  threshold: 1024,
  /** In the order preferred when the client accepts several equally. */
  encodings: ['br', 'gzip'] as const,
  brotliQuality: 4,
  gzipLevel: 6,
};

export type Encoding = (typeof API_COMPRESSION.encodings)[number];

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

const compress: Record<Encoding, (json: Buffer) => Promise<Buffer>> = {
  br: (json) =>
    brotli(json, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: API_COMPRESSION.brotliQuality,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: json.length,
      },
    }),
  gzip: (json) => gzipped(json, { level: API_COMPRESSION.gzipLevel }),
};

/** One answer's JSON and its compressed forms, each made on first need and then kept. */
export class PreparedAnswer {
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();

  constructor(readonly json: Buffer) {}

  /** Below the threshold an answer is always sent as it is. */
  get compressible(): boolean {
    return this.json.length >= API_COMPRESSION.threshold;
  }

  /** The JSON in `encoding`: compressed the first time it is asked for, the same bytes after. */
  encoding(encoding: Encoding): Promise<Buffer> {
    let bytes = this.encoded.get(encoding);
    if (!bytes) {
      bytes = compress[encoding](this.json);
      this.encoded.set(encoding, bytes);
    }
    return bytes;
  }

  /** Every form made (before the cache keeps it, so no request pays for it later); the bytes they all take. */
  async complete(): Promise<number> {
    if (!this.compressible) return this.json.length;
    const forms = await Promise.all(API_COMPRESSION.encodings.map((encoding) => this.encoding(encoding)));
    return forms.reduce((sum, form) => sum + form.length, this.json.length);
  }
}

/**
 * The encoding to answer in for an Accept-Encoding header, as @fastify/compress negotiates it: the highest q among
 * br and gzip (x-gzip is gzip, `*` is the first preferred), br on a tie; none for no header, identity, q=0 or only
 * encodings not offered.
 */
export function negotiateEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  let best: Encoding | null = null;
  let bestQuality = 0;
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = parameters.find((parameter) => /^q\s*=/.test(parameter));
    const quality = q === undefined ? 1 : Number.parseFloat(q.slice(q.indexOf('=') + 1)) || 0;
    const encoding = name === '*' ? API_COMPRESSION.encodings[0] : name === 'x-gzip' ? 'gzip' : name;
    const rank = API_COMPRESSION.encodings.indexOf(encoding as Encoding);
    if (rank < 0 || quality <= 0) continue;
    const better =
      quality > bestQuality ||
      (quality === bestQuality && best !== null && rank < API_COMPRESSION.encodings.indexOf(best));
    if (better) {
      best = encoding as Encoding;
      bestQuality = quality;
    }
  }
  return best;
}

/** Adds accept-encoding to the Vary header, keeping what another hook put there (CORS's Origin). */
function varyOnEncoding(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  const listed = typeof vary === 'string' ? vary.split(',').map((name) => name.trim().toLowerCase()) : [];
  if (listed.includes('accept-encoding') || listed.includes('*')) return;
  reply.header('vary', typeof vary === 'string' && vary !== '' ? `${vary}, accept-encoding` : 'accept-encoding');
}

/**
 * Sends `answer` as a 200 in the encoding the client accepts, with Vary: Accept-Encoding (the same address answers
 * differently by it). The bytes are a Buffer with their Content-Encoding set, so Fastify's serializer and the
 * compression plugin leave them as they are.
 */
export async function sendAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: PreparedAnswer,
): Promise<FastifyReply> {
  varyOnEncoding(reply);
  reply.type('application/json; charset=utf-8');
  const encoding = answer.compressible ? negotiateEncoding(request.headers['accept-encoding']) : null;
  if (encoding === null) return reply.send(answer.json);
  const bytes = await answer.encoding(encoding);
  return reply.header('content-encoding', encoding).send(bytes);
}
