// The overview's totals against the previous period: a change says its direction in words and an arrow, in the
// text's own colour. More mentions is not good news in itself (an outage draws them too), so no rise is green.
import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import { overviewFor, visit } from '@test/support/dashboard-app';

describe('the overview tiles', () => {
  it('show a rise and a fall without judging them', async () => {
    await visit('/workspace/w1/insight/overview?q=outage', (body) => {
      const answer = overviewFor(body as never, 300);
      answer.totals.mentions = { value: 300, previous: 200, change_pct: 50 };
      answer.totals.engagement = { value: 50, previous: 100, change_pct: -50 };
      return { status: 200, body: answer };
    });
    await screen.findByText('300', { selector: '.tile-value' }, { timeout: 4000 });
    const tiles = screen.getByRole('list', { name: 'Totals against the previous period' });
    const changes = [...tiles.querySelectorAll('.tile-change')];
    const [mentions, , engagement] = changes;
    expect(mentions!.textContent).toMatch(/^▲ \+50 %/);
    expect(engagement!.textContent).toMatch(/^▼ -50 %/);
    for (const change of changes) {
      expect(change.classList.contains('up') || change.classList.contains('down')).toBe(false);
    }
  });
});
