// The 503 of figures being prepared or unavailable (contract/figures.ts): its body's schema, the words the SPA says
// while it waits, and the retry rule of every query of figures (src/api/errors.ts): figures_preparing asked again
// after each Retry-After for as long as a rebuild takes, figures_unavailable final, 429 and busy after 3 failures.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { QueryClient } from '@tanstack/react-query';
import {
  FIGURES_PREPARING,
  FIGURES_UNAVAILABLE,
  figuresWaitSchema,
  figuresWaitText,
  humaneDuration,
  type FiguresProgress,
} from '@contract/figures';
import { figuresWait, HttpError, isPreparing, retryDelay, retryFigures } from '@/api/errors';

const progress = (over: Partial<FiguresProgress> = {}): FiguresProgress => ({
  phase: 'rebuilding',
  done: 430,
  total: 1000,
  percent: 43,
  eta_seconds: 240,
  ...over,
});

const http503 = (body: unknown, retryAfter: number | null = 2) =>
  new HttpError('POST', '/social/insights/overview', 503, JSON.stringify(body), retryAfter);
const preparing = (retryAfter: number | null = 2) =>
  http503(
    { error: FIGURES_PREPARING, message: 'The figures are being rebuilt.', progress: progress() },
    retryAfter,
  );
const unavailable = () =>
  http503({ error: FIGURES_UNAVAILABLE, message: 'The analytics store is turned off.' }, null);

describe('figuresWaitText', () => {
  it('says the percent and the time left as the issue words it', () => {
    expect(figuresWaitText(progress())).toBe('Preparing figures: 43 %, about 4 minutes left');
  });

  it('says what is known, and only the short words when nothing is', () => {
    expect(figuresWaitText(progress({ eta_seconds: null }))).toBe('Preparing figures: 43 %');
    expect(figuresWaitText(progress({ percent: null }))).toBe('Preparing figures: about 4 minutes left');
    expect(figuresWaitText(progress({ percent: null, eta_seconds: null }))).toBe('Preparing figures…');
    expect(figuresWaitText(undefined)).toBe('Preparing figures…');
    expect(figuresWaitText(progress({ percent: 0, eta_seconds: 0 }))).toBe(
      'Preparing figures: 0 %, less than a minute left',
    );
  });

  it('rounds the time left humanely', () => {
    expect(humaneDuration(0)).toBe('less than a minute');
    expect(humaneDuration(59)).toBe('less than a minute');
    expect(humaneDuration(60)).toBe('about 1 minute');
    expect(humaneDuration(89)).toBe('about 1 minute');
    expect(humaneDuration(90)).toBe('about 2 minutes');
    expect(humaneDuration(4 * 60 + 10)).toBe('about 4 minutes');
    expect(humaneDuration(59 * 60)).toBe('about 59 minutes');
    expect(humaneDuration(3599)).toBe('about 1 hour');
    expect(humaneDuration(2 * 3600 - 300)).toBe('about 2 hours');
  });
});

describe('figuresWaitSchema', () => {
  it('accepts the bare body, and one with a progress whose numbers are unknown', () => {
    expect(z.safeParse(figuresWaitSchema, { error: FIGURES_UNAVAILABLE, message: 'Off.' }).success).toBe(
      true,
    );
    expect(z.safeParse(figuresWaitSchema, { error: FIGURES_PREPARING, message: 'Wait.' }).success).toBe(true);
    const unknown = { phase: 'opening', done: null, total: null, percent: null, eta_seconds: null };
    expect(
      z.safeParse(figuresWaitSchema, { error: FIGURES_PREPARING, message: 'Wait.', progress: unknown })
        .success,
    ).toBe(true);
  });

  it('rejects garbage', () => {
    for (const body of [
      null,
      'figures_preparing',
      {},
      { error: FIGURES_PREPARING },
      { error: 'busy', message: 'Busy.' },
      { error: FIGURES_PREPARING, message: 'Wait.', progress: progress({ percent: 143 }) },
      { error: FIGURES_PREPARING, message: 'Wait.', progress: progress({ percent: 4.5 }) },
      { error: FIGURES_PREPARING, message: 'Wait.', progress: { ...progress(), phase: 'napping' } },
    ]) {
      expect(z.safeParse(figuresWaitSchema, body).success, JSON.stringify(body)).toBe(false);
    }
  });
});

describe('figuresWait', () => {
  it('reads a 503 about the figures, and nothing else', () => {
    expect(figuresWait(preparing())).toMatchObject({ error: FIGURES_PREPARING, progress: { percent: 43 } });
    expect(figuresWait(unavailable())).toMatchObject({ error: FIGURES_UNAVAILABLE });
    expect(figuresWait(http503({ error: 'busy', message: 'Busy.' }))).toBeNull();
    expect(figuresWait(new Error('network'))).toBeNull();
    const as500 = new HttpError(
      'POST',
      '/x',
      500,
      JSON.stringify({ error: FIGURES_PREPARING, message: 'W.' }),
    );
    expect(figuresWait(as500)).toBeNull();
    expect(isPreparing(preparing())).toBe(true);
    expect(isPreparing(unavailable())).toBe(false);
  });

  it('keeps the wait when its progress is not understood, without the progress', () => {
    const odd = http503({ error: FIGURES_PREPARING, message: 'Wait.', progress: { phase: 'standby' } });
    expect(figuresWait(odd)).toEqual({ error: FIGURES_PREPARING, message: 'Wait.' });
    expect(isPreparing(odd)).toBe(true);
  });
});

describe('the retry rule of figures', () => {
  afterEach(() => vi.useRealTimers());

  it('asks again while the figures are prepared, past 3 failures, each after its Retry-After', () => {
    expect(retryFigures(3, preparing())).toBe(true);
    expect(retryFigures(100, preparing())).toBe(true);
    expect(retryFigures(120, preparing())).toBe(false);
    expect(retryDelay(5, preparing(7))).toBe(7000);
    expect(retryDelay(5, preparing(null))).toBe(10_000);
  });

  it('does not ask again when the figures are unavailable; 429 and busy stop after 3 failures', () => {
    expect(retryFigures(0, unavailable())).toBe(false);
    const busy = http503({ error: 'busy', message: 'Busy.' }, 1);
    expect(retryFigures(2, busy)).toBe(true);
    expect(retryFigures(3, busy)).toBe(false);
    expect(retryFigures(0, new HttpError('POST', '/x', 400, '{}'))).toBe(false);
  });

  it('through TanStack Query: 5 answers figures_preparing, then the figures, each asked after Retry-After', async () => {
    vi.useFakeTimers();
    const client = new QueryClient();
    const asked: number[] = [];
    const start = Date.now();
    const answer = client.fetchQuery({
      queryKey: ['figures'],
      queryFn: () => {
        asked.push(Date.now() - start);
        if (asked.length <= 5) throw preparing(2);
        return Promise.resolve('figures');
      },
      retry: retryFigures,
      retryDelay,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(answer).resolves.toBe('figures');
    expect(asked).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
  });

  it('through TanStack Query: figures_unavailable is asked once', async () => {
    const client = new QueryClient();
    let asked = 0;
    const answer = client.fetchQuery({
      queryKey: ['figures'],
      queryFn: () => {
        asked += 1;
        throw unavailable();
      },
      retry: retryFigures,
      retryDelay,
    });
    await expect(answer).rejects.toBeInstanceOf(HttpError);
    expect(asked).toBe(1);
  });
});
