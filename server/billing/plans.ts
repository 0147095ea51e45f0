// The plan catalogue: configuration (server/billing/plans.json, or the file BILLING_PLANS_FILE names), validated once
// at start. The trial lasts TRIAL_DAYS; the demo and internal workspaces have no limits.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod/mini';
import { planLimitsSchema, type BillingInterval, type Plan, type PlanLimits } from '@contract/billing';

const DEFAULT_FILE = resolve(import.meta.dirname, 'plans.json');
const limit = z.int().check(z.gte(0), z.lte(10_000_000));
const limits = z.object({
  saved_queries: limit,
  members: z.int().check(z.gte(1), z.lte(100_000)),
  history_days: z.int().check(z.gte(1), z.lte(3650)),
  dashboard_requests_per_month: limit,
  exports_per_month: limit,
  tracked_queries: limit,
  posts_collected_per_month: limit,
});
const price = z.int().check(z.gte(1), z.lte(100_000_000));
const catalogueSchema = z.object({
  currency: z.string().check(z.regex(/^[a-z]{3}$/)),
  trial: z.object({ name: z.string(), description: z.string(), limits }),
  plans: z
    .array(
      z.object({
        id: z.string().check(z.regex(/^[a-z][a-z0-9-]{1,30}$/)),
        name: z.string().check(z.minLength(1)),
        description: z.string(),
        prices: z.object({ month: price, year: price }),
        limits,
      }),
    )
    .check(
      z.minLength(1),
      z.refine((plans) => new Set(plans.map((p) => p.id)).size === plans.length, 'Plan ids must be unique'),
      z.refine(
        (plans) => plans.every((p) => !['trial', 'demo', 'internal'].includes(p.id)),
        'trial, demo and internal are reserved plan ids',
      ),
    ),
});

export interface PaidPlan extends Plan {
  prices: { month: number; year: number };
}

export interface Catalogue {
  currency: string;
  trial: Plan;
  /** Paid plans, cheapest first. */
  paid: PaidPlan[];
  /** Any plan a workspace may be on: the paid ones, the trial, and the unlimited demo and internal plans. */
  find(planId: string): Plan;
  findPaid(planId: string): PaidPlan | undefined;
}

const UNLIMITED: PlanLimits = Object.fromEntries(
  Object.keys(planLimitsSchema.shape).map((key) => [key, null]),
) as PlanLimits;

function parseCatalogue(input: unknown, source = 'plans'): Catalogue {
  const result = z.safeParse(catalogueSchema, input);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid plan catalogue (${source}):\n${lines.join('\n')}`);
  }
  const { currency, trial, plans } = result.data;
  const paid: PaidPlan[] = plans.map((plan) => ({ ...plan })).sort((a, b) => a.prices.month - b.prices.month);
  const special: Record<string, Plan> = {
    trial: { id: 'trial', ...trial, prices: null },
    demo: { id: 'demo', name: 'Demo', description: 'The demo workspace.', prices: null, limits: UNLIMITED },
    internal: {
      id: 'internal',
      name: 'Internal',
      description: 'The staff workspace.',
      prices: null,
      limits: UNLIMITED,
    },
  };
  const byId = new Map<string, Plan>([...Object.entries(special), ...paid.map((p) => [p.id, p] as const)]);
  return {
    currency,
    trial: special.trial!,
    paid,
    // A plan id no longer in the file (removed since) keeps the trial's limits rather than none.
    find: (planId) => byId.get(planId) ?? special.trial!,
    findPaid: (planId) => paid.find((p) => p.id === planId),
  };
}

export function loadCatalogue(file?: string): Catalogue {
  const path = file ? resolve(file) : DEFAULT_FILE;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Invalid plan catalogue (${path}): ${(error as Error).message}`, { cause: error });
  }
  return parseCatalogue(json, path);
}

/** The price of a plan for an interval, in minor units. */
export const priceOf = (plan: PaidPlan, interval: BillingInterval) => plan.prices[interval];

/** Price per day, to compare plans and intervals (an upgrade costs more per day). */
export const dailyPrice = (plan: PaidPlan, interval: BillingInterval) =>
  plan.prices[interval] / (interval === 'year' ? 365 : 30);
