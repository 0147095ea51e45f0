// What the endpoints' statements read of the partitioned posts: the statements they really send (recorded at the pg
// driver), and the relations PostgreSQL's plan for one of them scans.
import pg from 'pg';
import { vi } from 'vitest';

/** Every relation a plan (EXPLAIN's JSON) scans. */
export function scanned(plan: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(plan)) for (const item of plan) scanned(item, into);
  else if (plan && typeof plan === 'object') {
    for (const [key, value] of Object.entries(plan)) {
      if (key === 'Relation Name' && typeof value === 'string') into.add(value);
      else scanned(value, into);
    }
  }
  return into;
}

export interface Statement {
  text: string;
  values: unknown[];
}

/** The statements reading posts that the endpoints run while `work` runs (on any connection). */
export async function statementsOf(work: () => Promise<void>): Promise<Statement[]> {
  const seen: Statement[] = [];
  const original = pg.Client.prototype.query;
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args as [unknown, unknown];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    const values =
      typeof first === 'object' && first && 'values' in first
        ? ((first as { values?: unknown[] }).values ?? [])
        : Array.isArray(second)
          ? second
          : [];
    if (text && /\bposts\s+(AS\s+)?p\b|\bFROM posts\b/i.test(text) && !/^\s*EXPLAIN/i.test(text)) {
      seen.push({ text, values });
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original);
  await work();
  vi.restoreAllMocks();
  return seen;
}
