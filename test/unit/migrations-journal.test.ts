// The migrations' journal: drizzle's migrator applies to an existing database only the migrations whose `when` is
// later than the last one it applied, so a migration whose `when` is not later than every one before it would be
// skipped on every database that already has those (and applied only on fresh ones). Each entry's `when` must exceed
// the previous one's, and the entries must be the migration files, in order.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve(import.meta.dirname, '../../server/db/migrations');
const journal = JSON.parse(readFileSync(path.join(DIR, 'meta/_journal.json'), 'utf8')) as {
  entries: Array<{ idx: number; when: number; tag: string }>;
};

describe('the migrations journal', () => {
  it('lists every migration file, in order', () => {
    const files = readdirSync(DIR)
      .filter((name) => name.endsWith('.sql'))
      .sort()
      .map((name) => name.replace(/\.sql$/, ''));
    expect(journal.entries.map((entry) => entry.tag)).toEqual(files);
    expect(journal.entries.map((entry) => entry.idx)).toEqual(files.map((_, i) => i));
  });

  it('gives each migration a later `when` than the one before it (or existing databases would skip it)', () => {
    const late = journal.entries.filter((entry, i) => i > 0 && entry.when <= journal.entries[i - 1]!.when);
    expect(late.map((entry) => entry.tag)).toEqual([]);
  });
});
