// An upload larger than the limit is refused before its bytes arrive, and a client that gives up mid-upload is not a
// failure of ours: it is logged below error level.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';

let server: TestServer;
let uploadDir: string;
let port: number;
let staff: { token: string };
/** Connections a test opened; a failing test may leave one the server still reads from. */
const sockets: Socket[] = [];
const logged: { level: number; msg?: string }[] = [];

beforeAll(async () => {
  uploadDir = mkdtempSync(join(tmpdir(), 'murmur-upload-limits-'));
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });
  server = await createTestServer(
    { SCRAPING_UPLOAD_DIR: uploadDir, SCRAPING_UPLOAD_MAX_MB: '1' },
    { logger: { level: 'info', stream } },
  );
  staff = await server.createUser({ isStaff: true });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  port = (server.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.close();
  rmSync(uploadDir, { recursive: true, force: true });
});

/** Sends an upload's head declaring `length` bytes, and `sent` bytes of its body, on a raw connection. */
function startUpload(length: number, sent: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      sockets.push(socket);
      socket.write(
        'POST /api/scraping/uploads?format=ndjson&file_name=big.ndjson HTTP/1.1\r\n' +
          `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${staff.token}\r\n` +
          `Content-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(sent, 0x20), () => resolve(socket));
    });
    socket.on('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
const answerOf = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
  });

describe('an upload over the limit', () => {
  it('is answered 413 from its Content-Length alone, and its connection closed', async () => {
    const socket = await startUpload(50 * 1024 * 1024, 1024);
    const answer = await answerOf(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"error":"too_large"');
    expect(answer).toContain('Files up to 1 MB can be uploaded.');
    expect(readdirSync(uploadDir)).toEqual([]);
  });

  it('is still refused when it declares no length and sends too much', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/scraping/uploads?format=ndjson&file_name=big.ndjson',
      headers: { authorization: `Bearer ${staff.token}`, 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(1024 * 1024 + 1, 0x20),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ error: 'too_large' });
  });
});

describe('an upload the client gives up on', () => {
  it('is logged as the client going away, below error level, and leaves no file', async () => {
    const before = logged.length;
    const socket = await startUpload(512 * 1024, 64 * 1024);
    socket.destroy();
    await vi.waitFor(
      () =>
        expect(logged.slice(before).some((entry) => entry.msg === 'upload aborted by the client')).toBe(true),
      { timeout: 10_000, interval: 50 },
    );
    // Give the request's own handling a moment to finish after the abort; nothing of it may be an error.
    await vi.waitFor(() => expect(readdirSync(uploadDir)).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(logged.slice(before).filter((entry) => entry.level >= 50)).toEqual([]);
  });
});
