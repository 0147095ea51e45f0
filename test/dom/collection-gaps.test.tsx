// The overview's collection gaps (src/features/insight/CollectionGaps.tsx): which buckets a gap spans (an open one up
// to now), and the sentence under the mentions chart.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CollectionGapsNote, inGap, type CollectionGap } from '@/features/insight/CollectionGaps';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const gap = (since: string, until: string | null): CollectionGap => ({
  label: 'Hacker News',
  message: 'Hacker News did not answer: timeout.',
  since: at(since) / 1000,
  until: until === null ? null : at(until) / 1000,
});

describe('inGap', () => {
  it('marks the buckets a closed gap overlaps, and no other', () => {
    const gaps = [gap('2026-11-26T10:30:00Z', '2026-11-26T12:00:00Z')];
    expect(inGap(gaps, at('2026-11-26T09:00:00Z'), HOUR)).toBe(false);
    expect(inGap(gaps, at('2026-11-26T10:00:00Z'), HOUR)).toBe(true);
    expect(inGap(gaps, at('2026-11-26T11:00:00Z'), HOUR)).toBe(true);
    expect(inGap(gaps, at('2026-11-26T12:00:00Z'), HOUR)).toBe(false);
  });

  it('runs an open gap up to now', () => {
    const gaps = [gap('2026-11-26T10:30:00Z', null)];
    const now = at('2026-11-26T14:10:00Z');
    expect(inGap(gaps, at('2026-11-26T14:00:00Z'), HOUR, now)).toBe(true);
    expect(inGap(gaps, at('2026-11-26T15:00:00Z'), HOUR, now)).toBe(false);
    expect(inGap([], at('2026-11-26T14:00:00Z'), HOUR, now)).toBe(false);
  });
});

describe('CollectionGapsNote', () => {
  it('says each gap with its span and sentence, in the zone', () => {
    render(<CollectionGapsNote gaps={[gap('2026-11-26T10:30:00Z', null)]} timeZone="UTC" />);
    expect(screen.getByRole('note').textContent).toBe(
      'Gaps in collection (grey on the chart, marked in its table): Hacker News since 26 Nov, 10:30 UTC: Hacker News did not answer: timeout.',
    );
  });

  it('says nothing without gaps', () => {
    const { container } = render(<CollectionGapsNote gaps={[]} timeZone="UTC" />);
    expect(container.textContent).toBe('');
  });
});
