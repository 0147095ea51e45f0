// The overview's sentiment panel while the corpus is rescanned to a new sentiment model (issue 53, item 5): the answer's
// `sentiment_rescan` is said under the panel ("Counted by two models until the rescan ends: 43 % rescanned"), through
// the real app against a fake backend; an answer without it says nothing of a rescan.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { overviewFor, visit } from '@test/support/dashboard-app';

const rescan = {
  model: 'model-new',
  rescanned: 430_000,
  total: 1_000_000,
  percent: 43,
  seconds_left: 240,
  models: { 'model-new': 430_000, 'model-old': 570_000 },
  started_at: '2026-11-26T18:00:00.000Z',
  finished_at: null,
};

describe('the sentiment panel during a rescan', () => {
  it('says that two models counted it and how far the rescan is', async () => {
    await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: { ...overviewFor(body as never, 42), sentiment_rescan: rescan },
    }));
    const note = await screen.findByText('Counted by two models until the rescan ends: 43 % rescanned.');
    expect(note.closest('p')!.textContent).toMatch(/^Sentiment is estimated/);
  });

  it('says nothing of a rescan when the answer has none', async () => {
    await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: overviewFor(body as never, 7),
    }));
    await screen.findByText('7', { selector: '.tile-value' }, { timeout: 4000 });
    expect(screen.queryByText(/until the rescan ends/)).toBeNull();
  });
});
