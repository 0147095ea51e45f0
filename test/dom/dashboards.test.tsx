// What a dashboard says when its answer is not a dashboard, through the real app against a fake backend: a query
// error shown at its column, a 429 or a 503 busy that names its wait and asks again once Retry-After has passed, a
// 503 time-out that offers a narrower range (and asks for it), and a link whose params are partly not understood (a notice, the
// defaults, a clean address). The figures themselves are compared with the real server's in
// test/browser/real-server-dashboards.test.ts.
import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { overviewFor, visit } from '@test/support/dashboard-app';

const hours = (range: { from: string; to: string }) =>
  (Date.parse(range.to) - Date.parse(range.from)) / 3_600_000;

describe('dashboard failures', () => {
  it('shows a query error at its column, with the way to fix it', async () => {
    await visit('/workspace/w1/insight/overview?q=coffee%20AND%20(tea', () => ({
      status: 400,
      body: {
        error: 'invalid_query',
        message: 'The query is not valid',
        errors: [{ message: 'Missing ")" to close the "(" at column 12', column: 12, length: 1 }],
      },
    }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The query has an error');
    expect(alert.textContent).toContain('Missing ")" to close the "(" at column 12');
    // The query, and under it a caret at column 12.
    expect(alert.querySelector('pre')!.textContent).toBe(`coffee AND (tea\n${' '.repeat(11)}^`);
    expect(screen.getByRole('link', { name: 'Edit the query in discover' }).getAttribute('href')).toBe(
      '/workspace/w1/discover?q=coffee+AND+%28tea',
    );
  });

  it('says when a 429 will be retried, and shows the dashboard once the retry succeeds', async () => {
    const { bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body, call) =>
      call === 0
        ? {
            status: 429,
            headers: { 'Retry-After': '1' },
            body: { error: 'rate_limited', message: 'Too many requests. Try again in 1 second.' },
          }
        : { status: 200, body: overviewFor(body as never, 42) },
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Too many dashboards at once');
    expect(alert.textContent).toContain('This page asks again by itself in 1 seconds.');
    await screen.findByText('42', { selector: '.tile-value' }, { timeout: 4000 });
    expect(bodies()).toHaveLength(2);
    expect(hours(bodies()[1]!.filters)).toBe(7 * 24);
    // The view's "now" is the start of its minute, so views opened within a minute ask the same range (and share the
    // server's cached answer).
    expect(Date.parse(bodies()[1]!.filters.to) % 60_000).toBe(0);
    expect(Date.now() - Date.parse(bodies()[1]!.filters.to)).toBeLessThan(60_000 + 10_000);
  });

  it('says the server is busy after a 503 busy, without offering a narrower range, and asks again after Retry-After', async () => {
    const { bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=90d', (body, call) =>
      call === 0
        ? {
            status: 503,
            headers: { 'Retry-After': '1' },
            body: {
              error: 'busy',
              message: 'Many dashboards and searches are being computed right now. Try again in 1 s.',
            },
          }
        : { status: 200, body: overviewFor(body as never, 90) },
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The server is busy');
    expect(alert.textContent).toContain('This page asks again by itself in 1 seconds.');
    expect(alert.textContent).not.toContain('This took too long');
    expect(screen.queryByRole('button', { name: 'Show the last 7 days' })).toBeNull();
    await screen.findByText('90', { selector: '.tile-value' }, { timeout: 4000 });
    // The same range asked again: nothing for the person to do.
    expect(bodies()).toHaveLength(2);
    expect(hours(bodies()[1]!.filters)).toBe(90 * 24);
  });

  it('offers a narrower range after a 503 time-out, and asks for it', async () => {
    const user = userEvent.setup();
    const { bodies, history } = await visit('/workspace/w1/insight/overview?q=coffee&range=90d', (body) =>
      hours((body as { filters: { from: string; to: string } }).filters) > 24 * 7
        ? {
            status: 503,
            body: { error: 'insights_timeout', message: 'The dashboard took longer than 10 s.' },
          }
        : { status: 200, body: overviewFor(body as never, 7) },
    );
    expect((await screen.findByRole('alert')).textContent).toContain('This took too long');
    await user.click(screen.getByRole('button', { name: 'Show the last 7 days' }));
    await screen.findByText('7', { selector: '.tile-value' });
    expect(new URLSearchParams(history.location.search).get('range')).toBe('7d');
    expect(hours(bodies().at(-1)!.filters)).toBe(7 * 24);
  });

  it("says up to when a lagging read replica's figures count posts", async () => {
    await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: { ...overviewFor(body as never, 41), data_as_of: '2026-11-22T13:05:00.000Z' },
    }));
    await screen.findByText('41', { selector: '.tile-value' });
    const notice = screen.getByText(/These figures count posts up to/);
    expect(notice.getAttribute('role')).toBe('status');
    // In the workspace's zone (Europe/Berlin: 14:05).
    expect(notice.textContent).toMatch(/22 Nov 2026, 14:05 CET: newer posts are still being copied/);
  });

  it('resets the parts of a link it does not understand, says so, and cleans the address', async () => {
    const { history, bodies } = await visit(
      '/workspace/w1/insight/overview?q=coffee&range=forever&refine=colour%3Ared&platforms=x,myspace',
      (body) => ({ status: 200, body: overviewFor(body as never, 3) }),
    );
    const notice = await screen.findByText(/Part of this link was not understood/);
    await waitFor(() =>
      expect(/\((.*)\)/.exec(notice.textContent!)![1]!.split(', ').sort()).toEqual([
        'platforms',
        'range',
        'refine',
      ]),
    );
    await waitFor(() => expect(history.location.search).toBe('?q=coffee'));
    // The default range (30 days) and no refinement were asked.
    await waitFor(() => expect(bodies().length).toBeGreaterThan(0));
    const last = bodies().at(-1)! as { filters: { from: string; to: string }; refine?: unknown };
    expect(hours(last.filters)).toBe(30 * 24);
    expect(last.refine).toBeUndefined();
  });
});
