// What a dashboard says while the analytics store cannot answer, through the real app against a fake backend: a 503
// figures_preparing shows the progress in words and a progress bar (a polite status, not an error) and the page asks
// again after Retry-After until the figures come; a 503 figures_unavailable shows the server's sentence and is final.
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { FiguresWait } from '@/components/FiguresWait';
import { overviewFor, visit } from '@test/support/dashboard-app';

const preparing = (percent: number | null, eta: number | null) => ({
  status: 503,
  headers: { 'Retry-After': '1' },
  body: {
    error: 'figures_preparing',
    message: 'The figures are being rebuilt from the database.',
    progress: { phase: 'rebuilding', done: null, total: null, percent, eta_seconds: eta },
  },
});

describe('figures being prepared', () => {
  it('shows the progress while the figures are prepared, asks again after Retry-After, then draws them', async () => {
    const { bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body, call) =>
      call < 4 ? preparing(call < 3 ? 43 : 97, 250) : { status: 200, body: overviewFor(body as never, 42) },
    );
    const status = await screen.findByText('Preparing figures: 43 %, about 4 minutes left');
    const region = status.closest('[role="status"]')!;
    expect(region.getAttribute('aria-live')).toBe('polite');
    const bar = screen.getByRole('progressbar', { name: 'Figures prepared' });
    expect(bar.getAttribute('value')).toBe('43');
    expect(screen.queryByRole('alert')).toBeNull();
    // Past the 3 tries of a 429 or a busy: still asking, the newer progress shown.
    await screen.findByText('Preparing figures: 97 %, about 4 minutes left', undefined, { timeout: 5000 });
    await screen.findByText('42', { selector: '.tile-value' }, { timeout: 4000 });
    expect(screen.queryByText(/Preparing figures/)).toBeNull();
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(bodies()).toHaveLength(5);
  }, 15_000);

  it('says only "Preparing figures…", without a bar, when the progress is unknown', async () => {
    await visit('/workspace/w1/insight/overview?q=coffee&range=7d', (body, call) =>
      call === 0 ? preparing(null, null) : { status: 200, body: overviewFor(body as never, 7) },
    );
    await screen.findByText('Preparing figures…');
    expect(screen.queryByRole('progressbar')).toBeNull();
    await screen.findByText('7', { selector: '.tile-value' }, { timeout: 4000 });
  });

  it("shows the server's sentence when the figures are unavailable, and does not ask again", async () => {
    const { bodies } = await visit('/workspace/w1/insight/overview?q=coffee&range=90d', () => ({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { error: 'figures_unavailable', message: 'The analytics store is turned off on this server.' },
    }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The figures are unavailable');
    expect(alert.textContent).toContain('The analytics store is turned off on this server.');
    // Not a time-out: a narrower range would not help.
    expect(screen.queryByRole('button', { name: 'Show the last 7 days' })).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(bodies()).toHaveLength(1);
  });
});

describe('FiguresWait', () => {
  it("says the server's sentence when there is no progress to word, and when the page stopped asking", () => {
    render(
      <FiguresWait wait={{ error: 'figures_preparing', message: 'The store is opening.' }} asking={false} />,
    );
    const status = screen.getByRole('status');
    expect(status.textContent).toContain('Preparing figures…');
    expect(status.textContent).toContain('The store is opening.');
    expect(status.textContent).toContain('This page stopped asking: reload it to ask again.');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });
});
