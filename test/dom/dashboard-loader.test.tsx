// A dashboard is loaded by its route: the route's loader starts the dashboard's request (with the query options the
// page reads) before the page is drawn, and the page then reads that answer instead of asking again.
import { describe, expect, it } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '@/app';
import type { FakeReply } from '@test/support/fake-http';
import { dashboardApp, overviewFor, visit } from '@test/support/dashboard-app';

const hours = (range: { from: string; to: string }) =>
  (Date.parse(range.to) - Date.parse(range.from)) / 3_600_000;

describe("a dashboard route's loader", () => {
  it('starts the dashboard request before the page is drawn, and the page shows that answer', async () => {
    const { app, bodies } = await dashboardApp('/workspace/w1/insight/overview?q=coffee&range=7d', (body) => ({
      status: 200,
      body: overviewFor(body as never, 42),
    }));
    // The router loads the address; nothing is drawn yet.
    await app.router.load();
    await waitFor(() => expect(bodies()).toHaveLength(1));
    expect(bodies()[0]!.query).toBe('coffee');
    expect(hours(bodies()[0]!.filters)).toBe(7 * 24);
    const cached = app.queryClient.getQueryCache().findAll({ queryKey: ['workspaces', 'w1', 'insights', 'overview'] });
    expect(cached).toHaveLength(1);

    render(<App app={app} />);
    await screen.findByText('42', { selector: '.tile-value' });
    // The page read the loader's query: the same key, no second request.
    expect(bodies()).toHaveLength(1);
    expect(app.queryClient.getQueryCache().findAll({ queryKey: ['workspaces', 'w1', 'insights'] })).toHaveLength(1);
  });

  it("keeps the previous figures on screen while the next scope's answer is on the way, and says it is updating", async () => {
    let release: (reply: FakeReply) => void = () => {};
    const { history, bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body, call) =>
      call === 0
        ? { status: 200, body: overviewFor(body as never, 42) }
        : new Promise<FakeReply>((resolve) => {
            release = resolve;
          }),
    );
    await screen.findByText('42', { selector: '.tile-value' });
    act(() => history.push('/workspace/w1/insight/overview?q=coffee&range=30d'));
    // The next scope is asked (by the route's loader) while the 7 days' figures stay, marked as updating.
    await waitFor(() => expect(bodies()).toHaveLength(2));
    expect(hours(bodies()[1]!.filters)).toBe(30 * 24);
    await screen.findByText('· updating…', { exact: false });
    expect(screen.getByText('42', { selector: '.tile-value' })).toBeTruthy();
    expect(document.querySelector('.insight-body')!.getAttribute('aria-busy')).toBe('true');
    release({ status: 200, body: overviewFor(bodies()[1]! as never, 30) });
    await screen.findByText('30', { selector: '.tile-value' });
    expect(screen.queryByText('42', { selector: '.tile-value' })).toBeNull();
    expect(bodies()).toHaveLength(2);
  });

  it('asks once per address: a button that sets the range the view already has asks nothing more', async () => {
    const user = userEvent.setup();
    const { history, bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=24h', (body) =>
      hours((body as { filters: { from: string; to: string } }).filters) === 24
        ? { status: 503, body: { error: 'insights_timeout', message: 'The dashboard took longer than 10 s.' } }
        : { status: 200, body: overviewFor(body as never, 5) },
    );
    expect((await screen.findByRole('alert')).textContent).toContain('This took too long');
    await user.click(screen.getByRole('button', { name: 'Show the last 24 hours' }));
    act(() => history.push('/workspace/w1/insight/overview?q=coffee&range=7d'));
    await screen.findByText('5', { selector: '.tile-value' });
    // The 24 hours once (the same address again asked nothing), then the 7 days.
    expect(bodies().map((body) => hours(body.filters))).toEqual([24, 7 * 24]);
  });
});
