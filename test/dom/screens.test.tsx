import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ToastContainer } from 'react-toastify/unstyled';
import { ErrorView } from '@/components/ErrorScreen';
import { ConfigErrorScreen } from '@/components/ConfigErrorScreen';
import { messages } from '@/lib/messages';
import { showToast } from '@/lib/toast';

afterEach(cleanup);

describe('error screens (spec §2)', () => {
  it('shows the title, description, a Try Again button and the message under Technical Details', async () => {
    render(
      <ErrorView
        title={messages.unexpectedErrorTitle}
        description={messages.unexpectedErrorDescription}
        error={new Error('Boom at the loader')}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Unexpected Error' })).toBeTruthy();
    expect(
      screen.getByText(
        'We encountered an unexpected error. Please try again or navigate to a different page. If the problem persists, please contact support.',
      ),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeTruthy();
    const summary = screen.getByText('Technical Details');
    const details = summary.closest('details')!;
    expect(details.open).toBe(false);
    await userEvent.click(summary);
    expect(details.open).toBe(true);
    expect(screen.getByText('Boom at the loader')).toBeTruthy();
  });

  it("falls back to 'Something went wrong' when no title is given", () => {
    render(<ErrorView error="plain failure" />);
    expect(screen.getByRole('heading', { name: 'Something went wrong' })).toBeTruthy();
  });

  it('names every bad configuration key', () => {
    render(<ConfigErrorScreen problems={[{ key: 'VITE_API_BASE_URL', message: 'Invalid url' }]} />);
    expect(screen.getByRole('alert').textContent).toContain('VITE_API_BASE_URL: Invalid url');
  });
});

describe('toasts (spec §9)', () => {
  it('never stacks the same message twice', async () => {
    render(<ToastContainer position="top-center" autoClose={3000} theme="light" limit={3} />);
    act(() => {
      showToast('error', messages.invalidInviteToken);
      showToast('error', messages.invalidInviteToken);
      showToast('info', messages.loginRequired);
    });
    expect(await screen.findByText(messages.loginRequired)).toBeTruthy();
    expect(screen.getAllByText(messages.invalidInviteToken)).toHaveLength(1);
  });
});
