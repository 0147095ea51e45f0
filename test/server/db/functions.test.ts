// The generated listing of SQL functions (server/db/functions, scripts/db-functions.ts) against the database the
// migrations build: the same functions and triggers, and each function's body as PostgreSQL stores it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';

const LISTING = join(import.meta.dirname, '..', '..', '..', 'server', 'db', 'functions');
let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

const listed = (name: string) => readFileSync(join(LISTING, `${name}.sql`), 'utf8');

it('lists every function of the migrated database, each with the body PostgreSQL runs', async () => {
  const functions = (
    await server.db.execute<{ name: string; source: string }>(sql`
      SELECT p.proname AS name, p.prosrc AS source FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
          AND d.deptype = 'e')`)
  ).rows;
  const files = readdirSync(LISTING).filter((file) => file.endsWith('.sql'));
  expect(files.sort()).toEqual(functions.map((f) => `${f.name}.sql`).sort());
  // A dollar-quoted body is stored as written (a SQL-standard body is stored parsed, with an empty prosrc).
  for (const { name, source } of functions) if (source.trim()) expect(listed(name), name).toContain(source);
});

it('lists every trigger beside the function it executes', async () => {
  const triggers = (
    await server.db.execute<{ name: string; function: string }>(sql`
      SELECT t.tgname AS name, p.proname AS function FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
      WHERE NOT t.tgisinternal`)
  ).rows;
  // None since migration 0016 (the corpus's change path replaced them): a trigger added later is listed too.
  for (const { name, function: executes } of triggers) {
    expect(listed(executes), name).toContain(`CREATE TRIGGER "${name}"`);
  }
});
