// The overview of a tracked saved query marks its collection gaps on its time axis (issue 54, item 4): it asks for the
// gaps of its range (GET …/tracking/gaps), marks the buckets an open gap or an ended one spans in the mentions chart's
// table, and says each under the chart with its span and sentence.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TrackingGapsResponse } from '@contract/tracking';
import { savedQueryFixture } from '@test/support/contract.fixtures';
import { overviewFor, visit } from '@test/support/dashboard-app';

const Q = '00000000-0000-4000-8000-0000000000c1';
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const unix = (ms: number) => Math.floor(ms / 1000);
const bucket = (start: number, mentions: number) => ({
  start: iso(start),
  local: iso(start).slice(0, 10),
  mentions,
  engagement: 0,
  positive: 0,
  neutral: mentions,
  negative: 0,
  average_sentiment: null,
  spike: false,
});

// What the server answers for the view's range (it keeps those that overlap it): Hacker News rate limited since 02:00
// today, and down yesterday from 10:00 to 12:00.
const gaps: TrackingGapsResponse = {
  gaps: [
    {
      source: 'hackernews',
      label: 'Hacker News',
      reason: 'rate_limited',
      message: 'Rate limited.',
      since: unix(today + 2 * 3_600_000),
      until: null,
      ended: false,
    },
    {
      source: 'hackernews',
      label: 'Hacker News',
      reason: 'unreachable',
      message: 'Hacker News did not answer.',
      since: unix(today - DAY + 10 * 3_600_000),
      until: unix(today - DAY + 12 * 3_600_000),
      ended: true,
    },
  ],
};

describe('the overview of a tracked query', () => {
  it('marks the buckets its open and ended gaps span, and says those of its range', async () => {
    const opened = await visit(
      `/workspace/w1/insight/overview?query=${Q}`,
      (body) => {
        const answer = overviewFor(body as never, 9);
        answer.time_zone = 'UTC';
        answer.range = { from: iso(today - 2 * DAY), to: iso(today + DAY) };
        answer.over_time = [bucket(today - 2 * DAY, 4), bucket(today - DAY, 3), bucket(today, 2)];
        return { status: 200, body: answer };
      },
      {
        savedQueries: [savedQueryFixture(Q, 'w1', { name: 'Tracked' })],
        api: (key) =>
          key === `GET workspaces/w1/saved-queries/${Q}/tracking/gaps`
            ? { status: 200, body: gaps }
            : undefined,
      },
    );
    const note = await screen.findByRole('note', {}, { timeout: 4000 });
    // Asked for the gaps of the view's range.
    const asked = opened.server.calls.find((call) => call.path.endsWith('/tracking/gaps'))!;
    expect(asked.search).toBe(`?from=${unix(today - 2 * DAY)}&to=${unix(today + DAY)}`);
    const hhmm = (ms: number) =>
      `${new Date(ms).toLocaleString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })}, ` +
      `${iso(ms).slice(11, 16)} UTC`;
    expect(note.textContent).toBe(
      'Gaps in collection (grey on the chart, marked in its table): ' +
        `Hacker News since ${hhmm(today + 2 * 3_600_000)}: Rate limited.; ` +
        `Hacker News from ${hhmm(today - DAY + 10 * 3_600_000)} to ${hhmm(today - DAY + 12 * 3_600_000)}: ` +
        'Hacker News did not answer.',
    );

    const card = screen.getByRole('region', { name: 'Mentions over time' });
    const asTable = within(card).queryByRole('button', { name: 'Table' });
    if (asTable) await userEvent.setup().click(asTable);
    const table = await within(card).findByRole('table');
    await waitFor(() => expect(within(table).getByRole('columnheader', { name: 'Collection' })).toBeTruthy());
    const [head, ...rows] = within(table).getAllByRole('row');
    const column = within(head!)
      .getAllByRole('columnheader')
      .findIndex((header) => header.textContent === 'Collection');
    const marks = rows.map((row) => row.querySelectorAll('th, td')[column]!.textContent);
    expect(marks).toEqual(['', 'Gap in collection', 'Gap in collection']);
  });
});
