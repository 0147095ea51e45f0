// A dashboard is loaded by its route: the route's loader starts the dashboard's request (with the query options the
// page reads) before the page is drawn, and the page then reads that answer instead of asking again.
import { describe, expect, it } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { App } from '@/app';
import { dashboardApp, overviewFor } from '@test/support/dashboard-app';

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
});
