// The overview's Sentiment card with posts too short to rate (issue 53, item 4): a "Not rated" row apart from the
// rated split, whose shares are of the rated posts, and a sentence saying what it means; an answer without
// `not_rated` (as the API's callers may get from an older server) shows the split as before.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { overviewFor, visit } from '@test/support/dashboard-app';

const card = async () => (await screen.findByRole('heading', { name: 'Sentiment' })).closest('section')!;

describe('the sentiment split with "not rated" posts', () => {
  it('counts them apart, with the shares of the rated posts and what "not rated" means', async () => {
    const { history } = await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: {
        ...overviewFor(body as never, 15),
        sentiment: { positive: 6, neutral: 2, negative: 2, not_rated: 5, average: 0.3 },
      },
    }));
    const section = await card();
    const row = (await within(section).findByText('Not rated')).closest('tr')!;
    expect(row.textContent).toContain('5');
    // Its share is none: the shares are of the 10 rated posts (positive 6 of 10).
    expect(within(section).getByText('Share of rated')).toBeTruthy();
    const positive = within(section).getByText('Positive').closest('tr')!;
    expect(positive.textContent).toMatch(/60\s?%/);
    expect(row.textContent).toContain('–');
    expect(within(positive).getByRole('button')).toBeTruthy();
    expect(section.textContent).toContain('Not rated: too little text to tell');
    // Its drill-down lists exactly its posts: the sentiment refinement's not_rated.
    await userEvent.click(within(row).getByRole('button'));
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    expect(new URLSearchParams(history.location.search).get('refine')).toBe('sentiment:not_rated');
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    await within(chips).findByText('Sentiment: only not rated');
  });

  it('shows the split as before when the answer has no not_rated', async () => {
    await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: overviewFor(body as never, 7),
    }));
    const section = await card();
    await within(section).findByText('Positive');
    expect(within(section).queryByText('Not rated')).toBeNull();
    expect(within(section).queryByText('Share of rated')).toBeNull();
    expect(section.textContent).not.toContain('too little text');
  });
});
