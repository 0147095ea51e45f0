// One embedded PostgreSQL for the server tests; each test file creates its own fresh database in it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '@server/db/database';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'murmur-pg-'));
  // As root, PostgreSQL runs as its own system user, which must be able to enter the directory.
  chmodSync(dir, 0o755);
  const port = Number(process.env.MURMUR_TEST_PG_PORT ?? 54400 + Math.floor(Math.random() * 500));
  const server = await startEmbeddedPostgres(join(dir, 'pg'), port);
  project.provide('pgAdminUrl', server.urlFor('postgres'));
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
