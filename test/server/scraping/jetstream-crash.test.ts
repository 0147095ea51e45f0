// The Bluesky stream's process killed (kill -9) mid-stream and started again: the corpus ends with exactly the posts
// that match, each once, and the stream's counts with every event once — the batch in flight at the kill was not
// committed, and is read again from the committed cursor minus the overlap. The consumer runs in a process of its own
// (test/support/jetstream-child.ts) against a local Jetstream (test/support/jetstream-stand-in.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '@server/db/database';
import { postEvent, startJetstreamStandIn, type JetstreamStandIn } from '@test/support/jetstream-stand-in';
import { waitFor } from '@test/support/worker-process';
import { freshDatabaseUrl } from '@test/support/server-harness';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test/support/jetstream-child.ts');
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0) * 1_000;
const EVENTS = 300;
const QUERIES = [{ id: 'q1', text: 'cloudnest' }];

let database: Awaited<ReturnType<typeof connect>>;
let url: string;
let standIn: JetstreamStandIn;
const started: ChildProcess[] = [];

/** Every third post says cloudnest: 100 of the 300 match. */
const events = Array.from({ length: EVENTS }, (_, i) =>
  postEvent(
    T0 + (i + 1) * 50_000,
    `did:plc:crash${String(i % 7).padStart(19, 'x')}`,
    `3kcrash${String(i).padStart(4, '0')}`,
    i % 3 === 0 ? `cloudnest report ${i}` : `something else ${i}`,
  ),
);
const expected = events.filter((_, i) => i % 3 === 0).length;

beforeAll(async () => {
  url = await freshDatabaseUrl();
  database = await connect(url);
  standIn = await startJetstreamStandIn({ events, intervalMs: 10 });
});

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await standIn?.close();
  await database?.close();
});

/** The consumer in its own process, resolved once it says it started. */
async function runConsumer() {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, url, standIn.url, JSON.stringify(QUERIES)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  started.push(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  for (;;) {
    const { value, done } = await lines.next();
    if (done) throw new Error('the consumer ended before it started');
    if (String(value) === '@@ started') return child;
  }
}

const counts = async () => {
  const { rows } = await database.pool.query<{ cursor_us: string; events: string; imported: string }>(
    'SELECT cursor_us::text, events::text, imported::text FROM stream_cursors',
  );
  return rows[0];
};

it(
  'ends with exactly the matching posts after a kill -9 mid-stream and a restart',
  { timeout: 120_000 },
  async () => {
    const first = await runConsumer();
    // Some batches committed, more events on the way: killed without warning.
    await waitFor(
      'a third of the events committed',
      async () => {
        const row = await counts();
        return row && Number(row.events) >= EVENTS / 3 ? row : undefined;
      },
      60_000,
    );
    const exited = new Promise((done) => first.once('exit', done));
    first.kill('SIGKILL');
    await exited;
    // Its last COMMIT may still be in PostgreSQL's hands after it died (sent, not yet done): read the cursor once no
    // other session of the database is busy, so that it is the one the next process starts from.
    await waitFor(
      "the killed process's sessions settled",
      async () => {
        const { rows } = await database.pool.query<{ busy: number }>(
          `SELECT count(*)::int AS busy FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
              AND state <> 'idle'`,
        );
        return rows[0]!.busy === 0 ? true : undefined;
      },
      10_000,
    );
    const atKill = await counts();
    expect(Number(atKill!.events)).toBeLessThan(EVENTS);
    const sentAtKill = standIn.sent;
    // Events were read past the last commit (a batch in flight), and are read again.
    expect(sentAtKill).toBeGreaterThan(Number(atKill!.events));

    await runConsumer();
    const last = String(events.at(-1)!.timeUs);
    await waitFor(
      'the last event committed',
      async () => ((await counts())?.cursor_us === last ? true : undefined),
      60_000,
    );

    const { rows } = await database.pool.query<{ n: string; keys: string }>(
      `SELECT count(*)::text AS n, count(DISTINCT external_id)::text AS keys FROM posts WHERE platform = 'bluesky'`,
    );
    expect(rows[0]).toEqual({ n: String(expected), keys: String(expected) });
    const { rows: texts } = await database.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM posts WHERE platform = 'bluesky' AND text NOT LIKE 'cloudnest report %'`,
    );
    expect(texts[0]!.n).toBe('0');
    // Every event counted once, every matching post written once; the second process began inside the overlap.
    expect(await counts()).toMatchObject({ events: String(EVENTS), imported: String(expected) });
    const resumed = standIn.connections.at(-1)!.get('cursor');
    expect(Number(resumed)).toBe(Number(atKill!.cursor_us) - 2_000_000);
    expect(standIn.sent).toBeGreaterThan(sentAtKill);
  },
);
