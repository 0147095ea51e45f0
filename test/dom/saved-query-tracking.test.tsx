// A saved query's tracking on the saved queries screen: owners and managers get the Track control (a labelled switch
// and one labelled checkbox a source, reached by keyboard) that saves what was chosen; every member sees the coverage
// panel per source — tracking since, backfilled back to, posts today, the last post, and a gap with its reason.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TrackingView, type TrackingViewProps } from '@/features/saved-queries/TrackingView';
import type { TrackingResponse, TrackingSource } from '@contract/tracking';

afterEach(cleanup);

const sources: TrackingSource[] = [
  { key: 'bluesky', label: 'Bluesky', mode: 'stream', reaches_back: 'Every new post as it is posted.' },
  { key: 'hackernews', label: 'Hacker News', mode: 'poll', reaches_back: 'Back to 2007.' },
  { key: 'reddit', label: 'Reddit', mode: 'poll', reaches_back: 'About the newest 1,000 results.' },
];

// 2026-11-26 09:12 UTC and friends.
const at = (hhmm: string) => Date.parse(`2026-11-26T${hhmm}:00Z`) / 1000;

const tracking: TrackingResponse = {
  saved_query_id: 'q1',
  enabled: true,
  sources: ['hackernews', 'reddit'],
  tracking_since: at('08:00'),
  coverage: [
    {
      source: 'hackernews',
      label: 'Hacker News',
      mode: 'poll',
      tracking_since: at('08:00'),
      backfilled_to: Date.parse('2026-10-01T00:00:00Z') / 1000,
      last_post_at: at('13:40'),
      last_poll_at: at('13:45'),
      posts_today: 1234,
      per_day: [
        { day: '2026-11-20', posts: 7 },
        { day: '2026-11-26', posts: 1234 },
      ],
      gap: null,
    },
    {
      source: 'reddit',
      label: 'Reddit',
      mode: 'poll',
      tracking_since: at('08:00'),
      backfilled_to: null,
      last_post_at: null,
      last_poll_at: at('13:45'),
      posts_today: 0,
      per_day: [],
      gap: {
        reason: 'rate_limited',
        message: 'Reddit rate limited until 14:05 UTC.',
        since: at('13:45'),
        until: at('14:05'),
      },
    },
  ],
};

const view = (props: Partial<TrackingViewProps> = {}) => {
  const onSave = vi.fn();
  render(
    <TrackingView
      queryName="Coffee"
      tracking={tracking}
      sources={sources}
      canEdit
      timeZone="UTC"
      saving={false}
      error={null}
      onSave={onSave}
      {...props}
    />,
  );
  return onSave;
};

describe('the Track control', () => {
  it('labels each source, is reached by keyboard and saves what was chosen', async () => {
    const onSave = view();
    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'Track Coffee' });
    const toggle = within(form).getByRole('checkbox', { name: /Track this query/ });
    expect((toggle as HTMLInputElement).checked).toBe(true);
    const boxes = ['Bluesky', 'Hacker News', 'Reddit'].map((name) =>
      within(form).getByRole('checkbox', { name: new RegExp(`^${name} `) }),
    );
    expect(boxes.map((b) => (b as HTMLInputElement).checked)).toEqual([false, true, true]);
    expect(within(form).getByRole('checkbox', { name: /Every new post as it is posted/ })).toBe(boxes[0]);

    // Tab from the switch to Bluesky, Space ticks it; Reddit unticked; Enter on the button saves.
    toggle.focus();
    await user.tab();
    expect(document.activeElement).toBe(boxes[0]);
    await user.keyboard(' ');
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(boxes[2]);
    await user.keyboard(' ');
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Save tracking' }));
    await user.keyboard('{Enter}');
    expect(onSave).toHaveBeenCalledWith({ enabled: true, sources: ['bluesky', 'hackernews'] });
  });

  it('refuses to turn on with no source, saying why', async () => {
    const onSave = view({ tracking: { ...tracking, enabled: false, sources: [], coverage: [] } });
    const user = userEvent.setup();
    await user.click(screen.getByRole('checkbox', { name: /Track this query/ }));
    expect(screen.getByText('Choose at least one source to track on.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Save tracking' }) as HTMLButtonElement).disabled).toBe(true);
    expect(onSave).not.toHaveBeenCalled();
  });

  it('shows the server’s refusal', () => {
    view({ error: 'Only owners and managers can change what a saved query tracks.' });
    expect(screen.getByText('Only owners and managers can change what a saved query tracks.')).toBeTruthy();
  });
});

describe('the plan’s tracking limits', () => {
  it('are said before they bite, and when they do', () => {
    view({
      tracking: {
        ...tracking,
        limits: {
          plan: 'Starter',
          tracked_queries: { used: 3, limit: 3 },
          posts_collected_per_month: { used: 16_500, limit: 20_000 },
        },
      },
    });
    const list = screen.getByRole('list', { name: "The Starter plan's tracking limits" });
    expect(list.textContent).toContain('Tracked queries in this workspace: 3 of 3 — no more can be tracked');
    expect(list.textContent).toContain('Posts collected this month: 16,500 of 20,000 — close to the limit');
  });

  it('are left out when the answer has none (the panel works without them)', () => {
    view();
    expect(screen.queryByRole('list', { name: /tracking limits/ })).toBeNull();
  });
});

describe('the coverage panel', () => {
  it('says per source since when, how far back, posts today, the last post and the gap', () => {
    view({ canEdit: false });
    expect(screen.queryByRole('form')).toBeNull();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.getByText(/Only owners and managers can change what a saved query tracks/)).toBeTruthy();
    const hn = screen.getByRole('region', { name: 'Coverage on Hacker News' });
    const terms = within(hn)
      .getAllByRole('term')
      .map((t) => [t.textContent, t.nextElementSibling?.textContent]);
    expect(terms[0]![0]).toBe('Tracking since');
    expect(terms[0]![1]).toMatch(/26 Nov 2026.*08:00/);
    expect(terms[1]![1]).toMatch(/1 Oct 2026/);
    expect(terms[2]).toEqual(['Posts today', '1,234']);
    expect(terms[3]![1]).toMatch(/13:40/);
    expect(terms[4]![0]).toBe('Posts per day');
    const days = within(hn).getByRole('list', {
      name: 'Posts collected per day on Hacker News, the last 14 days (UTC)',
    });
    expect(
      within(days)
        .getAllByRole('listitem')
        .map((day) => day.textContent),
    ).toEqual(['20 Nov: 7', '26 Nov: 1,234']);
    expect(within(hn).getByText('No gap.')).toBeTruthy();
    const reddit = screen.getByRole('region', { name: 'Coverage on Reddit' });
    expect(within(reddit).getByText('Not yet (the first search is due)')).toBeTruthy();
    expect(within(reddit).getByText('None in the last 14 days')).toBeTruthy();
    expect(within(reddit).getByRole('status').textContent).toMatch(
      /Rate limited: Reddit rate limited until 14:05 UTC\. Since 26 Nov,? 13:45 UTC, until 26 Nov,? 14:05 UTC\./,
    );
    // No gap has ended: no list of them.
    expect(screen.queryByRole('list', { name: /Earlier gaps/ })).toBeNull();
  });

  it('lists the gaps that have ended with their reason and span', () => {
    const hn = tracking.coverage[0]!;
    view({
      canEdit: false,
      tracking: {
        ...tracking,
        coverage: [
          {
            ...hn,
            closed_gaps: [
              {
                reason: 'unreachable',
                message: 'The Hacker News search did not answer.',
                since: at('11:10'),
                ended: at('11:25'),
              },
              {
                reason: 'rate_limited',
                message: 'Hacker News rate limited until 09:30 UTC.',
                since: at('09:00'),
                ended: at('09:30'),
              },
            ],
          },
        ],
      },
    });
    const list = screen.getByRole('list', { name: 'Earlier gaps on Hacker News' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      expect.stringMatching(
        /^Source unreachable: The Hacker News search did not answer\. From 26 Nov,? 11:10 UTC to 26 Nov,? 11:25 UTC\.$/,
      ),
      expect.stringMatching(
        /^Rate limited: Hacker News rate limited until 09:30 UTC\. From 26 Nov,? 09:00 UTC to 26 Nov,? 09:30 UTC\.$/,
      ),
    ]);
    // An ended gap is not the open one.
    expect(screen.getByText('No gap.')).toBeTruthy();
  });
});
