// `npm run bench:export [-- --rows 100000 --runs 3 --days 30 --query "" --sort recency --what posts --zone …]`: CSV
// exports (POST /social/insights/export/{posts,profiles}) from the 1M-post corpus (scripts/bench-corpus.ts, as
// bench:insights) through the real HTTP server on loopback. The server runs in a child process (this script with
// --serve), so that the resident memory sampled (every 20 ms, from /proc) is the server's alone. After a warm-up, one
// export of a tenth of --rows, then --runs exports of --rows: seconds, bytes, rows, the server's RSS growth over its
// RSS before the export (peak, and at each quarter of the rows), and its V8 heap in use after a full collection
// before and after the export (what the export keeps, as opposed to garbage not yet collected). Targets: 100 000 rows
// in ≤ 10 s, memory flat (the heap after a collection does not grow, the RSS reaches a plateau).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { buildApp } from '@server/app';
import { createAccessTokens } from '@server/auth/access-token';
import { signInAs } from '@server/auth/sign-in';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { memberships, users, workspaces } from '@server/db/schema';
import { openCorpus } from './bench-corpus';

interface Served {
  port: number;
  token: string;
  workspaceId: string;
  /** The latest post of the corpus (ms). */
  latest: number;
  posts: number;
}

/** The child: the app on the corpus, a bench user and workspace; one JSON line when listening; cleans up on SIGTERM. */
async function serve(url: string, timeZone: string) {
  const database = await connect(url);
  const config = loadServerConfig({
    APP_ENV: 'qa',
    DEV_OIDC: 'false',
    SOCIAL_RATE_LIMIT_PER_MINUTE: '100000',
  });
  const accessTokens = createAccessTokens(randomBytes(32), config.ACCESS_TOKEN_TTL_SECONDS);
  const app = await buildApp({ db: database.db, config, accessTokens });
  const { db } = database;
  const [user] = await db.insert(users).values({ email: 'bench-export@example.com' }).returning();
  const [workspace] = await db.insert(workspaces).values({ name: 'Bench export', timeZone }).returning();
  await db.insert(memberships).values({ workspaceId: workspace!.id, userId: user!.id, privilege: 'viewer' });
  const stats = await db.execute<{ posts: number; latest: number }>(
    sql`SELECT count(*)::int AS posts, extract(epoch FROM max(posted_at))::float8 * 1000 AS latest FROM posts`,
  );
  const close = async () => {
    await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
    await db.delete(users).where(eq(users.id, user!.id));
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void close());
  // The heap in use after a full collection (the child runs with --expose-gc), on the parent's request.
  process.on('message', () => {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ heap: process.memoryUsage().heapUsed });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const served: Served = {
    port: (app.server.address() as AddressInfo).port,
    token: (await signInAs(database.db, accessTokens, user!.id)).accessToken,
    workspaceId: workspace!.id,
    latest: stats.rows[0]!.latest,
    posts: stats.rows[0]!.posts,
  };
  console.log(JSON.stringify(served));
}

/** The child's V8 heap in use after a full collection. */
const heapAfterGc = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    child.once('message', (message: { heap: number }) => resolve(message.heap));
    child.send('gc');
  });

const rssOf = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line![1]) * 1024;
};
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  seconds: number;
  firstByte: number;
  bytes: number;
  rows: number;
  baseline: number;
  peak: number;
  /** The RSS when a quarter, half, three quarters and all of the rows had arrived. */
  quarters: number[];
  /** The heap in use after a full collection, before and after the export. */
  heap: [number, number];
  status: number;
}

/** One export, streamed and counted (records outside quotes), with the server's RSS sampled meanwhile. */
async function exportOnce(
  child: ChildProcess,
  served: Served,
  what: string,
  body: Record<string, unknown>,
  expected: number,
): Promise<Run> {
  const pid = child.pid!;
  const heapBefore = await heapAfterGc(child);
  const baseline = rssOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const started = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${served.port}/social/insights/export/${what}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspace_id: served.workspaceId, ...body }),
    });
    const firstByte = performance.now() - started;
    if (res.status !== 200) {
      console.error(`${res.status}: ${(await res.text()).slice(0, 300)}`);
      const heap: [number, number] = [heapBefore, heapBefore];
      return {
        seconds: 0,
        firstByte,
        bytes: 0,
        rows: 0,
        baseline,
        peak,
        quarters: [],
        heap,
        status: res.status,
      };
    }
    let bytes = 0;
    let records = 0;
    let comments = -1;
    let quoted = false;
    const quarters: number[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      // The comment lines open the file (no record starts with #: the first field is an id).
      if (comments < 0)
        comments =
          buffer
            .toString()
            .match(/^(#[^\n]*\n)*/)![0]
            .split('\n').length - 1;
      bytes += buffer.length;
      // Records: LFs outside quotes (a doubled quote toggles twice).
      for (let at = 0; at < buffer.length;) {
        const quote = buffer.indexOf(0x22, at);
        if (quoted) {
          if (quote < 0) break;
          quoted = false;
          at = quote + 1;
          continue;
        }
        const end = quote < 0 ? buffer.length : quote;
        for (let lf = buffer.indexOf(0x0a, at); lf >= 0 && lf < end; lf = buffer.indexOf(0x0a, lf + 1)) {
          records += 1;
        }
        if (quote < 0) break;
        quoted = true;
        at = quote + 1;
      }
      const rows = records - comments - 1;
      while (quarters.length < 4 && rows >= ((quarters.length + 1) * expected) / 4) quarters.push(rssOf(pid));
    }
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, rssOf(pid));
    clearInterval(sampler);
    return {
      seconds,
      firstByte,
      bytes,
      rows: records - comments - 1,
      baseline,
      peak,
      quarters,
      heap: [heapBefore, await heapAfterGc(child)],
      status: res.status,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean', default: false },
      rows: { type: 'string', default: '100000' },
      runs: { type: 'string', default: '3' },
      days: { type: 'string', default: '30' },
      query: { type: 'string', default: '' },
      sort: { type: 'string' },
      what: { type: 'string', default: 'posts' },
      zone: { type: 'string', default: 'America/New_York' },
    },
  });
  if (values.serve) return serve(process.env.BENCH_EXPORT_DATABASE_URL!, values.zone);

  const rows = Number(values.rows);
  const { url, server } = await openCorpus();
  const child = spawn(
    process.execPath,
    [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), '--serve', '--zone', values.zone],
    { env: { ...process.env, BENCH_EXPORT_DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`The server exited (${code}) before listening.`)));
    });
    const served = JSON.parse(line) as Served;
    const to = new Date(Math.ceil(served.latest / 3_600_000) * 3_600_000);
    const from = new Date(to.getTime() - Number(values.days) * 86_400_000);
    const body = {
      query: values.query,
      filters: { from: from.toISOString(), to: to.toISOString() },
      ...(values.sort && { sort: values.sort }),
    };
    console.log(
      `Corpus: ${served.posts.toLocaleString('en-US')} posts. Export of ${values.what}, ` +
        `query ${JSON.stringify(values.query)}, ` +
        `${values.days} days ending ${to.toISOString()}, sort ${values.sort ?? 'the default'}, zone ${values.zone}; ` +
        `the server in process ${child.pid}, loopback HTTP.\n`,
    );
    // Warm-up: JIT, the pool's connections, the plans.
    await exportOnce(child, served, values.what, { ...body, max_rows: 2_000 }, 2_000);
    await sleep(500);
    const sizes = [Math.max(1, Math.round(rows / 10)), ...Array<number>(Number(values.runs)).fill(rows)];
    for (const max of sizes) {
      const run = await exportOnce(child, served, values.what, { ...body, max_rows: max }, max);
      if (run.status !== 200) continue;
      const growth = (rss: number) => mb(rss - run.baseline);
      console.log(
        `${String(run.rows).padStart(7)} rows  ${run.seconds.toFixed(2).padStart(6)} s  ` +
          `${mb(run.bytes).padStart(9)}  ${Math.round(run.rows / run.seconds).toLocaleString('en-US')} rows/s  ` +
          `first byte ${run.firstByte.toFixed(0)} ms` +
          `${run.rows < max ? `  (fewer rows than ${max}: widen --days)` : ''}` +
          `${max >= 100_000 && run.seconds > 10 ? '  above the 10 s target' : ''}`,
      );
      console.log(
        `         server RSS ${mb(run.baseline)} before, peak ${mb(run.peak)} (growth ${growth(run.peak)}; at 1/4, ` +
          `1/2, 3/4, all of the rows: ${run.quarters.map(growth).join(', ')}); heap in use after a full ` +
          `collection ${mb(run.heap[0])} before, ${mb(run.heap[1])} after`,
      );
      await sleep(500);
    }
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `\nLoad average (1, 5, 15 min) at the end: ${load} on ${cpus().length} cores shared with other work.`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    await server?.stop();
  }
}

main().then(
  () => {
    if (!process.argv.includes('--serve')) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
