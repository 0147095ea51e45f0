// The time zone list of Settings › General from the keyboard and the mouse, as the combobox pattern has it: typing
// filters (name parts or an offset), Down and Up move, Enter chooses (the only zone left without moving), Escape
// closes and then restores, leaving the field puts back text that names no zone, and a click chooses.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { TimeZoneCombobox } from '@/components/TimeZoneCombobox';

afterEach(cleanup);

function Harness({ initial = 'UTC' }: { initial?: string }) {
  const [zone, setZone] = useState(initial);
  return (
    <form onSubmit={(event) => event.preventDefault()}>
      <TimeZoneCombobox label="Time zone" value={zone} onChange={setZone} />
      <span data-testid="chosen">{zone}</span>
      <button type="button">Elsewhere</button>
    </form>
  );
}

const input = () => screen.getByRole('combobox', { name: 'Time zone' }) as HTMLInputElement;
const chosen = () => screen.getByTestId('chosen').textContent;
const options = () => screen.queryAllByRole('option').map((option) => option.firstChild?.textContent);

// jsdom draws the list of about 400 zones again at every key typed: slow, not wrong.
describe('TimeZoneCombobox', { timeout: 60_000 }, () => {
  it('filters by name parts and offsets, and chooses with Down and Enter', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    expect(input().getAttribute('aria-expanded')).toBe('false');
    await user.click(input());
    expect(input().getAttribute('aria-expanded')).toBe('true');
    // The list opens on the chosen zone.
    expect(screen.getByRole('option', { selected: true }).textContent).toBe('UTCUTC+00:00');
    await user.clear(input());
    await user.type(input(), 'argentina salta');
    expect(options()).toEqual(['America/Argentina/Salta']);
    // Old names find the zone too.
    await user.clear(input());
    await user.type(input(), 'calcutta');
    expect(options()).toEqual(['Asia/Kolkata']);
    await user.clear(input());
    await user.type(input(), '+5:45');
    // The one zone 5 h 45 min ahead, under its current name (ICU lists it as Asia/Katmandu).
    expect(options()).toEqual(['Asia/Kathmandu']);
    await user.keyboard('{ArrowDown}');
    const active = input().getAttribute('aria-activedescendant')!;
    expect(document.getElementById(active)?.firstChild?.textContent).toBe('Asia/Kathmandu');
    await user.keyboard('{Enter}');
    expect(chosen()).toBe('Asia/Kathmandu');
    expect(input().getAttribute('aria-expanded')).toBe('false');
    expect(screen.getByText(/^Now UTC\+05:45 in Asia\/Kathmandu\./)).toBeTruthy();
  });

  it('chooses the only zone left with Enter, and Up from the text goes to the last', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.clear(input());
    await user.type(input(), 'tokyo');
    await user.keyboard('{Enter}');
    expect(chosen()).toBe('Asia/Tokyo');
    await user.clear(input());
    await user.type(input(), 'europe');
    await user.keyboard('{ArrowUp}');
    const all = options();
    const active = input().getAttribute('aria-activedescendant')!;
    expect(document.getElementById(active)?.firstChild?.textContent).toBe(all[all.length - 1]);
  });

  it('closes with Escape, restores with a second Escape, and puts the zone back on leaving', async () => {
    const user = userEvent.setup();
    render(<Harness initial="Europe/Berlin" />);
    await user.clear(input());
    await user.type(input(), 'nowhere at all');
    expect(screen.getByRole('status').textContent).toBe('No time zone matches “nowhere at all”.');
    expect(options()).toEqual([]);
    await user.keyboard('{Escape}');
    expect(input().getAttribute('aria-expanded')).toBe('false');
    expect(input().value).toBe('nowhere at all');
    await user.keyboard('{Escape}');
    expect(input().value).toBe('Europe/Berlin');
    await user.clear(input());
    await user.type(input(), 'lisb');
    await user.click(screen.getByRole('button', { name: 'Elsewhere' }));
    expect(input().value).toBe('Europe/Berlin');
    expect(chosen()).toBe('Europe/Berlin');
  });

  it('chooses with a click', async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.clear(input());
    await user.type(input(), 'new york');
    await user.click(screen.getByRole('option', { name: /America\/New_York/ }));
    expect(chosen()).toBe('America/New_York');
    expect(input().value).toBe('America/New_York');
    expect(document.activeElement).toBe(input());
  });
});
