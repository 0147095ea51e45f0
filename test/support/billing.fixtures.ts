// A plan catalogue for tests: the bundled plans.json with chosen limits for the trial (and every plan), written to a
// temporary file that BILLING_PLANS_FILE points the test server at.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PlanLimits } from '@contract/billing';

const BUNDLED = path.resolve(import.meta.dirname, '../../server/billing/plans.json');

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
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'murmur-plans-')), 'plans.json');
  writeFileSync(file, JSON.stringify(catalogue));
  return file;
}

/**
 * For tests of what the dashboards count on fixed past dates (not of plans): a trial that keeps ten years of history,
 * so no range of theirs is clipped to the plan's.
 */
export const longHistory = () => ({ BILLING_PLANS_FILE: plansFile({ history_days: 3650 }) });
