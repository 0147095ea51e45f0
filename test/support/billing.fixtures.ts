// A plan catalogue for tests: the bundled plans.json with chosen limits for the trial (and every plan), written to a
// temporary file that BILLING_PLANS_FILE points the test server at.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { PlanLimits } from '@contract/billing';

const BUNDLED = path.resolve(import.meta.dirname, '../../server/billing/plans.json');

/** The files' directories, removed when the test file that made them is done (a server reads its file as it starts). */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Limits = { [K in keyof PlanLimits]: number };
interface Catalogue {
  currency: string;
  trial: { name: string; description: string; limits: Limits };
  plans: Array<{ id: string; name: string; prices: { month: number; year: number }; limits: Limits }>;
}

/** The bundled catalogue with the trial's limits (and per plan id, a plan's) replaced; returns the file's path. */
export function plansFile(trial: Partial<Limits>, plans: Record<string, Partial<Limits>> = {}): string {
  const catalogue = JSON.parse(readFileSync(BUNDLED, 'utf8')) as Catalogue;
  catalogue.trial.limits = { ...catalogue.trial.limits, ...trial };
  for (const plan of catalogue.plans) plan.limits = { ...plan.limits, ...plans[plan.id] };
  const dir = mkdtempSync(path.join(tmpdir(), 'murmur-plans-'));
  made.push(dir);
  const file = path.join(dir, 'plans.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

/**
 * The test server's plans unless a test gives its own (server-harness.ts): a trial that keeps ten years of history, so
 * no range over the fixed past dates the tests count is clipped to the plan's, whatever today is.
 */
export const longHistory = () => ({ BILLING_PLANS_FILE: plansFile({ history_days: 3650 }) });
