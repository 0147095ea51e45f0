// Migration 0045 (alert_source_silent) on a database that already holds alert rules and events, as drizzle's migrator
// applies it (every pending migration in one transaction): the enum value added, the CHECK on the kind's text (the
// value cannot be named as one in that transaction), the events' source '' and their new key; then a source-silent
// rule is written and its hours checked.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from '@server/db/database';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../../server/db/migrations');
const TAG = '0045_alert_source_silent';

let client: pg.Client;
let before: string;

/** A copy of the migrations without 0045 and what follows it: the database as it stood before. */
function migrationsBefore(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-migrations-'));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === TAG);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

beforeAll(async () => {
  const { inject } = await import('vitest');
  const url = new URL(inject('pgAdminUrl'));
  const name = `alert_silence_upgrade_${process.pid}_${Date.now()}`;
  await ensureDatabase(url.toString(), name);
  url.pathname = `/${name}`;
  client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  before = migrationsBefore();
  await migrate(drizzle(client), { migrationsFolder: before });
});
afterAll(async () => {
  await client?.end();
  if (before) rmSync(before, { recursive: true, force: true });
});

describe('migration 0045 on an existing database', () => {
  it('keeps the rules and events there, adds the kind and checks its hours', async () => {
    const { rows } = await client.query<{ ws: string; q: string; rule: string }>(
      `WITH ws AS (INSERT INTO workspaces (name) VALUES ('Before') RETURNING id),
         q AS (INSERT INTO saved_queries (workspace_id, name, query) SELECT id, 'Brand', 'brand' FROM ws RETURNING id),
         r AS (INSERT INTO alert_rules (workspace_id, saved_query_id, kind, period, threshold, webhook_secret)
               SELECT ws.id, q.id, 'volume', 'day', 100, 's' FROM ws, q RETURNING id)
       SELECT ws.id AS ws, q.id AS q, r.id AS rule FROM ws, q, r`,
    );
    const { ws, q, rule } = rows[0]!;
    await client.query(
      `INSERT INTO alert_events (rule_id, workspace_id, window_start, window_end, figures, title, message)
       VALUES ($1, $2, '2026-11-20T00:00:00Z', '2026-11-21T00:00:00Z', '{}', 't', 'm')`,
      [rule, ws],
    );
    await expect(
      client.query(
        `INSERT INTO alert_rules (workspace_id, saved_query_id, kind, period, threshold, webhook_secret)
         VALUES ($1, $2, 'source_silent', 'hour', 6, 's')`,
        [ws, q],
      ),
    ).rejects.toThrow(/invalid input value for enum alert_kind/);

    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });

    const events = await client.query<{ source: string }>(
      'SELECT source FROM alert_events WHERE rule_id = $1',
      [rule],
    );
    expect(events.rows).toEqual([{ source: '' }]);
    const insert = (threshold: number) =>
      client.query(
        `INSERT INTO alert_rules (workspace_id, saved_query_id, kind, period, threshold, webhook_secret)
         VALUES ($1, $2, 'source_silent', 'hour', $3, 's') RETURNING id`,
        [ws, q, threshold],
      );
    await expect(insert(169)).rejects.toThrow(/alert_rules_threshold_check/);
    const silent = (await insert(168)).rows[0] as { id: string };
    // The older kinds keep their bounds.
    await expect(
      client.query('UPDATE alert_rules SET threshold = 101 WHERE id = $1', [rule]),
    ).resolves.toBeDefined();
    await expect(
      client.query(`UPDATE alert_rules SET kind = 'sentiment_shift', threshold = 101 WHERE id = $1`, [rule]),
    ).rejects.toThrow(/alert_rules_threshold_check/);
    // One event per rule, window start and source: two sources silent since the same instant are two events.
    const event = (source: string) =>
      client.query(
        `INSERT INTO alert_events (rule_id, workspace_id, window_start, window_end, source, figures, title, message)
         VALUES ($1, $2, '2026-11-20T09:12:00Z', '2026-11-20T15:20:00Z', $3, '{}', 't', 'm')`,
        [silent.id, ws, source],
      );
    await event('bluesky');
    await event('hackernews');
    await expect(event('bluesky')).rejects.toThrow(/alert_events_rule_window_source_key/);
  });
});
