// The conversation dashboard's Themes card (RangeThemes.tsx) through the real app against a fake backend: it asks
// POST /social/insights/themes with the view's body, lists each theme's words, posts, rise, sentiment and volume (a
// labelled sparkline), and a theme's button, reached and pressed from the keyboard, opens its posts: the view refined
// to any of its words.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ConversationResponse } from '@contract/insights-responses';
import type { ThemesResponse } from '@contract/insights-themes';
import { visit } from '@test/support/dashboard-app';

const RANGE = { from: '2026-11-01T00:00:00.000Z', to: '2026-11-08T00:00:00.000Z' };
const base = {
  time_zone: 'Europe/Berlin',
  range: RANGE,
  query: 'coffee',
  counted: 'Posts matching "coffee".',
};

const conversation: ConversationResponse = {
  ...base,
  previous_range: { from: '2026-10-25T00:00:00.000Z', to: RANGE.from },
  hashtags: [],
  mentions: [],
  domains: [],
  terms: [],
  emerging: [],
  emerging_rule: 'Emerging.',
  words_sample: {
    current: { posts: 0, sampled: 0, estimated: false },
    previous: { posts: 0, sampled: 0, estimated: false },
    cap: 5000,
  },
};

const theme = (words: string[], posts: number, previous: number): ThemesResponse['themes'][number] => ({
  terms: words.map((value, i) => ({ value, posts: posts - i })),
  posts,
  previous_posts: previous,
  rise: previous ? posts / previous : null,
  over_time: [0, 1, 2].map((d) => ({
    start: `2026-11-0${d + 1}T00:00:00.000Z`,
    local: `2026-11-0${d + 1}T00:00:00`,
    posts: d * 3,
  })),
  sentiment: { positive: 2, neutral: 1, negative: posts - 3, not_rated: 0, average: -0.25 },
  top_posts: [],
});

const themes: ThemesResponse = {
  ...base,
  previous_range: conversation.previous_range,
  bucket: 'day',
  posts: 120,
  words: 60,
  edges: 14,
  themes: [theme(['outage', 'servers', 'login'], 40, 10), theme(['pizza', 'cheese'], 12, 0)],
};

describe('the Themes card', () => {
  it('lists the themes and opens a theme’s posts from the keyboard', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const { history } = await visit(
      '/workspace/w1/insight/conversation?q=coffee&range=7d',
      () => ({ status: 404 }),
      {
        social: (path, body) => {
          if (path === '/social/insights/conversation') return { status: 200, body: conversation };
          if (path === '/social/insights/themes') {
            asked.push(body);
            return { status: 200, body: themes };
          }
          return undefined;
        },
      },
    );
    const section = (await screen.findByRole('heading', { name: 'Themes' })).closest('section')!;
    const outage = await within(section).findByRole('button', {
      name: 'Posts with any of outage, servers, login',
    });
    expect(asked[0]).toMatchObject({ workspace_id: 'w1', query: 'coffee' });
    const item = outage.closest('li')!;
    expect(item.textContent).toContain('40 posts');
    expect(item.textContent).toContain('×4 against the range before (10)');
    expect(item.textContent).toContain('2 positive, 1 neutral, 37 negative');
    expect(within(item).getByRole('img', { name: 'Posts per day: 0, 3, 6' })).toBeTruthy();
    const pizza = within(section).getByRole('button', { name: 'Posts with any of pizza, cheese' });
    expect(pizza.closest('li')!.textContent).toContain('none in the range before');
    expect(section.textContent).toContain('60 words of 120 posts, 14 pairs linked.');

    outage.focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    expect(new URLSearchParams(history.location.search).get('refine')).toBe('term:outage,servers,login');
  });
});
