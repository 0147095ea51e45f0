// What a read of the figures answers while the analytics store cannot: the store is the only engine that computes
// them, so a store being opened or rebuilt is an honest wait (503 figures_preparing, with the rebuild's progress and
// Retry-After), and a store that is down, turned off, held by another process or out of reach is a sentence (503
// figures_unavailable). Never a 500, never figures from elsewhere. The body's shape is contract/figures.ts.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { figuresWaitText, type FiguresProgress } from '@contract/figures';
import { ApiError } from '@server/errors';
import type { AnalyticsService, AnalyticsState } from './service';

/** The state of a store that prepares its figures (not down, off or another's). */
type Preparing = AnalyticsState & { phase: FiguresProgress['phase'] };

/** The rebuild's progress over all its phases: each phase an equal share, the current one by its own percent. */
function overall(state: Preparing): FiguresProgress {
  const progress = state.progress;
  if (!progress) return { phase: state.phase, done: null, total: null, percent: null, eta_seconds: null };
  const percent = Math.min(99, Math.floor(((progress.step - 1) * 100 + progress.percent) / progress.steps));
  // The phases after this one are not measured yet: each is reckoned as long as this one at its rate.
  const left =
    progress.etaSeconds === null ? null : progress.etaSeconds * (progress.steps - progress.step + 1);
  return { phase: state.phase, done: progress.done, total: progress.total, percent, eta_seconds: left };
}

/** 503 figures_preparing: the store opens, rebuilds, starts again or catches up; ask again after Retry-After. */
export function figuresPreparing(state: Preparing): ApiError {
  const progress = overall(state);
  const retryAfterSeconds =
    progress.eta_seconds === null ? 3 : Math.min(30, Math.max(3, Math.round(progress.eta_seconds / 20)));
  // Worded as the SPA words it (contract/figures.ts), for a client that shows the message.
  return new ApiError(503, 'figures_preparing', `${figuresWaitText(progress)}.`, {
    retryAfterSeconds,
    body: { progress },
  });
}

/** 503 figures_unavailable: no store can answer here until a person or the store's server acts. */
export function figuresUnavailable(why: string): ApiError {
  return new ApiError(503, 'figures_unavailable', `Figures cannot be computed right now: ${why}`, {
    retryAfterSeconds: 30,
  });
}

/** The answer to a read while the store is in `state` and cannot answer. */
export function figuresWait(state: AnalyticsState): ApiError {
  switch (state.phase) {
    case 'standby':
      return figuresUnavailable(
        'another process of this deployment runs the analytics store, and this server has none of its own.',
      );
    case 'down':
      return figuresUnavailable('the analytics store is down (its process could not be started again).');
    case 'stopped':
      return figuresUnavailable('the server is shutting down.');
    default:
      return figuresPreparing({ ...state, phase: state.phase });
  }
}

/** ANALYTICS_STORE=off: the server runs no store, so it computes no figure. */
export const storeOff = () =>
  figuresUnavailable('this server runs without the analytics store (ANALYTICS_STORE=off).');

/** The routes that compute figures (their full paths). The query check's count is refused in its own answer. */
const FIGURE_ROUTES =
  /^\/(social\/(insights\/|saved-queries\/volume$|discover$|posts\/detail$|profiles\/detail$)|api\/(shared\/answer|scraping\/totals)$)/;

/** The wait a figure read meets now (null when the store answers). */
export function figuresReady(service: AnalyticsService | undefined): ApiError | null {
  if (!service) return storeOff();
  const state = service.state();
  return state.ready ? null : figuresWait(state);
}

/**
 * Refuses a figure route with the wait before its handler runs (nothing read, no monthly volume counted), after the
 * route's own checks (the caller's workspace access, its rate limit): a non-member still gets 404, not the store's state.
 */
export const figuresReadiness = fp(
  async (app: FastifyInstance, { service }: { service: () => AnalyticsService | undefined }) => {
    const refuse = async () => {
      const wait = figuresReady(service());
      if (wait) throw wait;
    };
    app.addHook('onRoute', (route) => {
      if (!FIGURE_ROUTES.test(route.url)) return;
      route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), refuse];
    });
  },
  { name: 'figures-readiness', dependencies: ['route-access'] },
);
