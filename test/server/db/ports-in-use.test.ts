// A port that another program holds is said at start with the setting to change: the embedded PostgreSQL's
// (EMBEDDED_PG_PORT) and the server's own (PORT, checked before the database and the SPA's build take their time).
// The development mailbox's (DEV_MAILBOX_PORT) has its own test in test/server/mail.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '@server/db/database';
import { ensurePortFree } from '@server/http-server';

const dir = mkdtempSync(join(tmpdir(), 'murmur-ports-'));
chmodSync(dir, 0o755);
const held: Server[] = [];

afterAll(async () => {
  await Promise.all(held.map((server) => new Promise((done) => server.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

/** A port on 127.0.0.1 held by "another program". */
async function holdPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

describe('ports in use at start', () => {
  it("the embedded PostgreSQL's names EMBEDDED_PG_PORT", async () => {
    const port = await holdPort();
    await expect(startEmbeddedPostgres(join(dir, 'pg'), port)).rejects.toThrow(
      `The embedded PostgreSQL cannot listen on port ${port}: it is in use by another program (stop it, or set ` +
        'EMBEDDED_PG_PORT to a free port).',
    );
  });

  it("the server's names PORT, and a free one passes", async () => {
    const port = await holdPort();
    await expect(ensurePortFree('127.0.0.1', port, 'PORT')).rejects.toThrow(
      `Port ${port} (127.0.0.1) is in use by another program: stop it, or set PORT to a free port.`,
    );
    const free = await holdPort();
    await new Promise((done) => held.pop()!.close(done));
    await expect(ensurePortFree('127.0.0.1', free, 'PORT')).resolves.toBeUndefined();
  });
});
