// `npm run bench:api`: load on loopback against GET users/me and GET workspaces/{id} with valid tokens.
// The server runs in this process on a fresh embedded-PostgreSQL database; autocannon runs as a separate process.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { buildApp } from '@server/app';
import { loadServerConfig } from '@server/config';
import { connect, ensureDatabase, startEmbeddedPostgres } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { cpuSeconds, postmasterOf } from './bench-cpu';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Result {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

function autocannon(url: string, token: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        fileURLToPath(import.meta.resolve('autocannon')),
        '--json',
        '-c',
        String(CONNECTIONS),
        '-d',
        String(DURATION_S),
        '-H',
        `authorization=Bearer ${token}`,
        url,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as Result);
      } catch {
        reject(new Error(`autocannon printed no result: ${out.slice(0, 200)}`));
      }
    });
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'murmur-bench-'));
  chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres(join(dir, 'pg'), 55400 + Math.floor(Math.random() * 400));
  try {
    await ensureDatabase(pg.urlFor('postgres'), 'bench');
    const database = await connect(pg.urlFor('bench'));
    const config = loadServerConfig({ APP_ENV: 'qa' });
    const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
    const app = await buildApp({ db: database.db, config, accessTokens });
    const [user] = await database.db
      .insert(users)
      .values({ email: 'bench@example.com', firstName: 'Bench' })
      .returning();
    const [workspace] = await database.db.insert(workspaces).values({ name: 'Bench workspace' }).returning();
    await database.db
      .insert(memberships)
      .values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'owner' });
    const token = (await signInAs(database.db, accessTokens, user!.id)).accessToken;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    console.log(
      `bench:api — ${CONNECTIONS} connections, ${DURATION_S} s per endpoint, loopback, 2-core machine`,
    );
    const backend = await database.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const postmaster = postmasterOf(backend.rows[0]!.pid);
    console.log(
      'endpoint                    req/s      p50 ms   p99 ms   non-2xx  target (≥ 5000 req/s, p99 ≤ 20 ms)   ' +
        'CPU µs/req: server + PostgreSQL + autocannon = total → req/s on 2 idle cores',
    );
    for (const [label, path] of [
      ['GET users/me', '/api/users/me'],
      ['GET workspaces/{id}', `/api/workspaces/${workspace!.id}`],
    ] as const) {
      await autocannon(`${base}${path}`, token); // warm-up: JIT, pool, prepared statements
      const before = cpuSeconds(postmaster);
      const r = await autocannon(`${base}${path}`, token);
      const after = cpuSeconds(postmaster);
      const pass = r.requests.average >= 5000 && r.latency.p99 <= 20;
      // What one request cost the machine, load generator included: on a shared machine the figure that compares.
      const us = (key: 'server' | 'clients' | 'postgres') =>
        ((after[key] - before[key]) * 1e6) / r.requests.total;
      const total = us('server') + us('postgres') + us('clients');
      console.log(
        `${label.padEnd(26)} ${r.requests.average.toFixed(0).padStart(7)} ${String(r.latency.p50).padStart(10)} ${String(r.latency.p99).padStart(8)} ${String(r.non2xx + r.errors).padStart(9)}  ${(pass ? 'PASS' : 'BELOW').padEnd(36)}  ` +
          `${us('server').toFixed(0)} + ${us('postgres').toFixed(0)} + ${us('clients').toFixed(0)} = ${total.toFixed(0)} → ${(2e6 / total).toFixed(0)}`,
      );
    }
    await app.close();
    await database.close();
  } finally {
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench:api failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
