// "Why this range" on the overview (SpikeDrivers.tsx, DriversRange.tsx) through the real app against a fake backend:
// "Explain from … to …" picks consecutive buckets of the mentions chart, asks POST /social/insights/drivers for the
// window from the start of the first to the end of the last, and names it in the workspace's zone (Europe/Berlin);
// the "to" never comes before the "from" (it moves, and the form says so); the address carries the range
// (`why=<from>/<to>`) and opens it again, an old alert's `why=<bucket start>` still opens its bucket, and a `why`
// that is not one of the two forms is ignored.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { DriversResponse } from '@contract/insights-drivers';
import type { OverviewResponse } from '@contract/insights-responses';
import { crossedRange, type DriversWindow } from '@/features/insight/DriversRange';
import { overviewFor, visit } from '@test/support/dashboard-app';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-03T13:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * HOUR).toISOString();

/** Hours from 13:00 UTC (14:00 CET) on 3 Nov; the 15:00 UTC hour has no posts, the 17:00 UTC one is a spike. */
const MENTIONS = [2, 3, 0, 4, 20, 1];
const overTime = (mentions: readonly number[]): OverviewResponse['over_time'] =>
  mentions.map((count, i) => ({
    start: at(i),
    local: at(i).slice(0, 19),
    mentions: count,
    engagement: 0,
    positive: 0,
    neutral: count,
    negative: 0,
    average_sentiment: null,
    spike: count >= 20,
  }));

const answer = (filters: { from: string; to: string }): DriversResponse => ({
  time_zone: 'Europe/Berlin',
  range: { from: filters.from, to: filters.to },
  query: 'coffee',
  counted: 'Posts matching "coffee".',
  baseline: { kind: 'same_hours', windows: [], rule: 'The same hours of the 7 days before.' },
  posts: { window: 9, baseline: 7, expected: 1, excess: 8 },
  drivers: [
    {
      kind: 'term',
      value: 'outage',
      label: 'outage',
      posts: 6,
      baseline_posts: 0,
      expected: 0,
      lift: null,
      excess_share: 0.75,
      share: 0.67,
      g2: 12.5,
    },
  ],
  top_posts: [],
});

/** The overview at `search`: its buckets, and every drivers request's filters in `asked`. */
async function overview(search: string, mentions: readonly number[] = MENTIONS) {
  const asked: Array<{ from: string; to: string }> = [];
  const opened = await visit(
    `/workspace/w1/insight/overview?q=coffee&range=7d${search}`,
    (body) => ({
      status: 200,
      body: {
        ...overviewFor(body as { filters: { from: string; to: string } }, 30),
        bucket: 'hour',
        over_time: overTime(mentions),
      },
    }),
    {
      social: (path, body) => {
        if (path !== '/social/insights/drivers') return undefined;
        const { filters } = body as { filters: { from: string; to: string } };
        asked.push({ from: filters.from, to: filters.to });
        return { status: 200, body: answer(filters) };
      },
    },
  );
  // The app's first render (routes, session, workspace) can pass the default second on a loaded machine.
  await screen.findByRole('table', { name: 'Mentions over time' }, { timeout: 10_000 });
  return { ...opened, asked };
}

const picker = () => screen.getByRole('form', { name: 'Explain a range of the chart' });
const fromSelect = () => within(picker()).getByRole('combobox', { name: 'Explain from' });
const toSelect = () => within(picker()).getByRole('combobox', { name: 'to' });
const optionNames = (select: HTMLElement) =>
  within(select)
    .getAllByRole('option')
    .map((option) => option.textContent);
const whyOfAddress = (search: string) => new URLSearchParams(search).get('why');

describe('Why this range', () => {
  it('explains the buckets from … to … as one window, named in the zone, and drills into it', async () => {
    const { asked, history } = await overview('');
    // The buckets with posts (the empty 16:00 CET is inside a range, not an end of one).
    expect(optionNames(fromSelect())).toEqual([
      'Choose…',
      '3 Nov, 14:00 CET',
      '3 Nov, 15:00 CET',
      '3 Nov, 17:00 CET',
      '3 Nov, 18:00 CET',
      '3 Nov, 19:00 CET',
    ]);
    await userEvent.selectOptions(fromSelect(), '3 Nov, 15:00 CET');
    await userEvent.selectOptions(toSelect(), '3 Nov, 17:00 CET');
    await userEvent.click(within(picker()).getByRole('button', { name: 'Why this range' }));

    const panel = await screen.findByRole('region', { name: 'Why 3 Nov, 15:00 CET – 3 Nov, 18:00 CET' });
    expect(within(panel).getByRole('heading', { level: 3 }).textContent).toBe(
      'Why 3 Nov, 15:00 CET – 3 Nov, 18:00 CET',
    );
    await within(panel).findByText('+8 posts against 1 expected: 67 % of them with outage.');
    expect(asked).toEqual([{ from: at(1), to: at(4) }]);
    await waitFor(() => expect(whyOfAddress(history.location.search)).toBe(`${at(1)}/${at(4)}`));

    // Its word's posts: the range's buckets with posts, and the word.
    await userEvent.click(within(panel).getByRole('button', { name: 'Posts of this window with outage' }));
    await waitFor(() => expect(history.location.pathname).toBe('/workspace/w1/insight/filtered-posts'));
    const refine = new URLSearchParams(history.location.search).get('refine')!;
    expect(refine).toContain('term:outage');
    expect(refine).toContain(`date.hour:${encodeURIComponent(at(1))},${encodeURIComponent(at(3))}`);
  });

  it('never lets the range end before it starts, and says when it moves its end', async () => {
    const { asked, history } = await overview('');
    expect(toSelect()).toHaveProperty('disabled', true);
    await userEvent.selectOptions(fromSelect(), '3 Nov, 17:00 CET');
    // Chosen alone, the "from" is the range's one bucket; the "to" offers no bucket before it.
    expect(toSelect()).toHaveProperty('value', at(3));
    expect(optionNames(toSelect())).toEqual([
      'Choose…',
      '3 Nov, 17:00 CET',
      '3 Nov, 18:00 CET',
      '3 Nov, 19:00 CET',
    ]);
    await userEvent.selectOptions(toSelect(), '3 Nov, 18:00 CET');
    expect(within(picker()).getByRole('status').textContent).toBe('');

    await userEvent.selectOptions(fromSelect(), '3 Nov, 19:00 CET');
    expect(toSelect()).toHaveProperty('value', at(5));
    expect(within(picker()).getByRole('status').textContent).toBe(
      'A range cannot end before it starts: it now ends at 3 Nov, 19:00 CET.',
    );
    await userEvent.click(within(picker()).getByRole('button', { name: 'Why this range' }));
    // One bucket: named as the bucket, up to the end of the chart's range.
    await screen.findByRole('region', { name: 'Why this bucket: 3 Nov, 19:00 CET' });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.from).toBe(at(5));
    expect(Date.parse(asked[0]!.to)).toBeGreaterThan(T0);
    await waitFor(() => expect(whyOfAddress(history.location.search)).toBe(`${at(5)}/${asked[0]!.to}`));
  });

  it('takes at most 50 buckets, and moves an end beyond them', async () => {
    await overview(
      '',
      Array.from({ length: 60 }, () => 1),
    );
    await userEvent.selectOptions(fromSelect(), '3 Nov, 15:00 CET');
    await userEvent.selectOptions(toSelect(), '5 Nov, 16:00 CET');
    await userEvent.selectOptions(fromSelect(), '3 Nov, 14:00 CET');
    expect(optionNames(toSelect())).toHaveLength(51);
    expect(toSelect()).toHaveProperty('value', at(49));
    expect(within(picker()).getByRole('status').textContent).toBe(
      'A range takes at most 50 buckets with posts: it now ends at 5 Nov, 15:00 CET.',
    );
  });

  it('opens a range from the address, as it wrote it', async () => {
    const { asked } = await overview(`&why=${encodeURIComponent(`${at(1)}/${at(4)}`)}`);
    await screen.findByRole('region', { name: 'Why 3 Nov, 15:00 CET – 3 Nov, 18:00 CET' });
    await waitFor(() => expect(asked).toEqual([{ from: at(1), to: at(4) }]));
  });

  it("opens an old alert's bucket and closes it from its button", async () => {
    const { asked, history } = await overview(`&why=${encodeURIComponent(at(4))}`);
    const panel = await screen.findByRole('region', { name: 'Why this spike: 3 Nov, 18:00 CET' });
    await within(panel).findByText('+8 posts against 1 expected: 67 % of them with outage.');
    expect(asked).toEqual([{ from: at(4), to: at(5) }]);
    const button = screen.getByRole('button', { name: 'Why this spike: 3 Nov, 18:00 CET' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    await userEvent.click(button);
    expect(screen.queryByRole('region', { name: /^Why / })).toBeNull();
    await waitFor(() => expect(whyOfAddress(history.location.search)).toBeNull());
  });

  it.each([
    ['not an instant', 'yesterday'],
    ['a range whose end is not an instant', `${at(1)}/soon`],
    ['a range ending before it starts', `${at(4)}/${at(1)}`],
    ['three parts', `${at(1)}/${at(2)}/${at(3)}`],
    ['a range with no bucket of the chart', `${at(-30)}/${at(-20)}`],
  ])('ignores a why that is %s', async (_, why) => {
    const { asked } = await overview(`&why=${encodeURIComponent(why)}`);
    expect(fromSelect()).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Why this spike: 3 Nov, 18:00 CET' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: /^Why / })).toBeNull();
    expect(asked).toEqual([]);
  });
});

describe('a drag across the chart', () => {
  const windows = (hours: readonly number[]): DriversWindow[] =>
    hours.map((h) => ({ from: at(h), to: at(h + 1), name: `h${h}`, refine: [] }));

  it('takes the buckets with posts it crossed, both ends included', () => {
    // The chart's hour 2 has no posts: it is no bucket of the picker.
    const buckets = windows([0, 1, 3, 4, 5]);
    expect(crossedRange(buckets, at(2), at(4))).toEqual({ first: at(3), last: at(4) });
    expect(crossedRange(buckets, at(0), at(0))).toEqual({ first: at(0), last: at(0) });
    expect(crossedRange(buckets, at(2), at(2))).toBeNull();
  });

  it('takes at most 50 of them', () => {
    const buckets = windows(Array.from({ length: 60 }, (_, i) => i));
    expect(crossedRange(buckets, at(5), at(59))).toEqual({ first: at(5), last: at(54) });
  });
});
