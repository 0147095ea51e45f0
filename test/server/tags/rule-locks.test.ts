// The order of a tag rule's writers' locks (server/tags/hold.ts): the rules' rows, then the corpus lock, then the
// rules' rows of posts and ranges. A rule's past pass holds its rule while it waits its turn for the corpus lock, and
// gets it before the writers who queued after it; a rule changed while a removal of posts holds the corpus lock waits
// for the removal before it touches its ranges, which the removal clears bits in (no deadlock).
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { tagRules } from '@server/db/tags-schema';
import { applyPastFromStore } from '@server/social/insights/rule-past';
import { generatedCorpus } from '@test/support/reference/corpus';
import type { TestServer } from '@test/support/server-harness';
import { as, type Team } from '@test/support/workspaces.fixtures';
import type { runningService } from '../analytics/dashboards.fixtures';
import { coffeeWithStore } from './store-rules.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let team: Team;
let base: string;
let newRule: (query: string) => Promise<string>;

const CORPUS_LOCK = `SELECT pg_advisory_xact_lock(hashtext('murmur:corpus'))`;

beforeAll(async () => {
  ({ server, running, team, base, newRule } = await coffeeWithStore(
    generatedCorpus(7410, 300),
    'rule-locks',
  ));
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/** Resolves once `n` sessions wait for the corpus lock (an advisory lock not granted). */
async function waitingForCorpus(n: number): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const { rows } = await server.pool.query<{ n: number }>(
      // This test's database only: pg_locks is the whole server's, whose other databases other tests use.
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    if (rows[0]!.n === n) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${n} sessions never waited for the corpus lock`);
}

/** A session of its own, in a transaction holding the corpus lock. */
async function holdingCorpus(): Promise<PoolClient> {
  const client = await server.pool.connect();
  await client.query('BEGIN');
  await client.query(CORPUS_LOCK);
  return client;
}

describe("a tag rule's locks", () => {
  it('a past pass waits its turn for the corpus lock, ahead of the writers who came after it', async () => {
    const id = await newRule('coffee');
    const first = await holdingCorpus();
    const later = await server.pool.connect();
    try {
      const pass = applyPastFromStore(server.db, running.service, id);
      await waitingForCorpus(1);
      await later.query('BEGIN');
      const laterLocked = later.query(CORPUS_LOCK);
      await waitingForCorpus(2);
      await first.query('COMMIT');
      // The later writer holds the lock from when it gets it until this test ends its transaction: a pass that only
      // tried the lock would have lost it to that writer and given the rule to the live path.
      expect(await pass).toBe('store');
      await laterLocked;
      // When the later writer got the lock, the pass had committed (each statement reads what is committed).
      const { rows: seen } = await later.query<{ past_from: string | null }>(
        'SELECT past_from FROM tag_rules WHERE id = $1',
        [id],
      );
      expect(seen).toEqual([{ past_from: 'store' }]);
      const [rule] = await server.db.select().from(tagRules).where(eq(tagRules.id, id));
      expect([rule!.pastFrom, rule!.pastNote]).toEqual(['store', null]);
    } finally {
      await first.query('ROLLBACK').catch(() => {});
      await later.query('ROLLBACK').catch(() => {});
      first.release();
      later.release();
      await server.db.delete(tagRules).where(eq(tagRules.id, id));
    }
  }, 60_000);

  it('a rule changed during a removal of posts waits for its corpus lock before touching its ranges', async () => {
    const id = await newRule('coffee');
    expect(await applyPastFromStore(server.db, running.service, id)).toBe('store');
    const { rows } = await server.db.execute<{ post_id: string }>(
      sql`SELECT post_id::text FROM post_tag_rows WHERE rule_id = ${id} ORDER BY post_id LIMIT 1`,
    );
    const post = Number(rows[0]!.post_id);
    const removal = await holdingCorpus();
    try {
      const change = as(server, team.manager, {
        method: 'PUT',
        url: `${base}/tag-rules/${id}`,
        payload: { query: 'tea' },
      });
      await waitingForCorpus(1);
      // The removal clears the post's bit in the rule's range: a change that had locked its ranges before the corpus
      // lock would wait for it, and PostgreSQL would fail one of the two (a deadlock).
      await removal.query(`SET LOCAL lock_timeout = '5s'`);
      await removal.query(`SELECT corpus_delete_posts($1)`, [`id = ${post}`]);
      await removal.query('COMMIT');
      const res = await change;
      expect(res.statusCode, res.body).toBe(200);
      const { rows: left } = await server.db.execute(sql`SELECT FROM post_keys WHERE id = ${post}`);
      expect(left).toEqual([]);
    } finally {
      await removal.query('ROLLBACK').catch(() => {});
      removal.release();
      await server.db.delete(tagRules).where(eq(tagRules.id, id));
    }
  }, 60_000);
});
