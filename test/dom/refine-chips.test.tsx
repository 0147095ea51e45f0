// A drill-down refinement's chip through the real app: it says what the view keeps or leaves out, and its switch is
// named by what pressing it does.
import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { overviewFor, visit } from '@test/support/dashboard-app';

describe('a refinement chip', () => {
  it('states whether the posts are kept or left out, and names its switch by its action', async () => {
    const { history } = await visit(
      '/workspace/w1/insight/overview?q=coffee&refine=platform%3Ax',
      (body) => ({
        status: 200,
        body: overviewFor(body as never, 3),
      }),
    );
    const chips = await screen.findByRole('group', { name: 'Drill-down refinements' });
    expect(within(chips).getByText('Platform: only X')).toBeTruthy();
    const leaveOut = within(chips).getByRole('button', { name: 'Leave out Platform X' });
    expect(leaveOut.textContent).toBe('Leave out');
    expect(within(chips).getByRole('button', { name: 'Remove Platform: only X' }).textContent).toBe('×');

    await userEvent.click(leaveOut);
    await waitFor(() => expect(history.location.search).toContain('refine=%21platform%3Ax'));
    expect(within(chips).getByText('Platform: not X')).toBeTruthy();
    const keep = within(chips).getByRole('button', { name: 'Keep only Platform X' });
    expect(keep.textContent).toBe('Keep only');
    expect(chips.textContent).not.toContain('Exclude');
  });
});
