// A source-silent rule's threshold (contract/alerts.ts: hours from 1 to 168, as the form and the server check it), when
// a tracked source is silent (server/alerts/silence.ts: since its open gap, else since the later of its last post and
// when tracking began; never before tracking was last turned on), and what the alert says in the workspace's zone.
import { describe, expect, it } from 'vitest';
import { thresholdProblem } from '@contract/alerts';
import type { Coverage, TrackingResponse } from '@contract/tracking';
import { silenceWording, silentSources } from '@server/alerts/silence';

describe('thresholdProblem for source_silent', () => {
  it('takes whole hours from 1 to 168, and needs one', () => {
    expect(thresholdProblem('source_silent', 1)).toBeNull();
    expect(thresholdProblem('source_silent', 168)).toBeNull();
    for (const hours of [0, 169, -3, Number.NaN])
      expect(thresholdProblem('source_silent', hours)).toBe(
        'The silence is a number of hours from 1 to 168.',
      );
    expect(thresholdProblem('source_silent', null)).toBe('This rule needs a threshold.');
  });
});

const s = (iso: string) => Date.parse(iso) / 1000;
const coverage = (source: string, fields: Partial<Coverage>): Coverage => ({
  source,
  label: source === 'bluesky' ? 'Bluesky' : 'Hacker News',
  mode: source === 'bluesky' ? 'stream' : 'poll',
  tracking_since: s('2026-11-20T00:00:00Z'),
  backfilled_to: null,
  last_post_at: null,
  last_poll_at: null,
  posts_today: 0,
  per_day: [],
  gap: null,
  ...fields,
});
const tracking = (covered: Coverage[], fields: Partial<TrackingResponse> = {}): TrackingResponse => ({
  saved_query_id: 'q',
  enabled: true,
  sources: covered.map((c) => c.source),
  tracking_since: s('2026-11-20T00:00:00Z'),
  coverage: covered,
  ...fields,
});
const NOW = new Date('2026-11-20T15:20:00Z');

describe('silentSources', () => {
  const gap = { reason: 'unreachable' as const, message: 'Bluesky did not answer.', until: null };

  it("starts a silence at the open gap's start, whatever the last post", () => {
    const t = tracking([
      coverage('bluesky', {
        last_post_at: s('2026-11-20T02:00:00Z'),
        gap: { ...gap, since: s('2026-11-20T09:12:00Z') },
      }),
    ]);
    expect(silentSources(t, 6, NOW)).toEqual([
      {
        source: 'bluesky',
        label: 'Bluesky',
        since: new Date('2026-11-20T09:12:00Z'),
        gap: { reason: 'unreachable', message: 'Bluesky did not answer.' },
      },
    ]);
    expect(silentSources(t, 7, NOW)).toEqual([]);
  });

  it('without a gap, at the later of the last post and when tracking began on the source', () => {
    const quiet = tracking([coverage('hackernews', { last_post_at: s('2026-11-20T09:00:00Z') })]);
    expect(silentSources(quiet, 6, NOW).map((x) => x.since.toISOString())).toEqual([
      '2026-11-20T09:00:00.000Z',
    ]);
    expect(silentSources(quiet, 7, NOW)).toEqual([]);
    // A backfilled post older than the source's tracking does not make it silent sooner.
    const backfilled = tracking([
      coverage('hackernews', {
        tracking_since: s('2026-11-20T10:00:00Z'),
        last_post_at: s('2026-11-01T00:00:00Z'),
      }),
    ]);
    expect(silentSources(backfilled, 6, NOW)).toEqual([]);
    expect(silentSources(backfilled, 5, NOW).map((x) => x.since.toISOString())).toEqual([
      '2026-11-20T10:00:00.000Z',
    ]);
  });

  it('never before tracking was last turned on, and nothing while it is off', () => {
    const covered = [coverage('bluesky', { gap: { ...gap, since: s('2026-11-19T00:00:00Z') } })];
    expect(silentSources(tracking(covered, { tracking_since: s('2026-11-20T12:00:00Z') }), 6, NOW)).toEqual(
      [],
    );
    expect(silentSources(tracking(covered, { enabled: false }), 1, NOW)).toEqual([]);
  });
});

describe('silenceWording', () => {
  const silence = {
    source: 'bluesky',
    label: 'Bluesky',
    since: new Date('2026-11-20T09:12:00Z'),
    gap: { reason: 'unreachable', message: 'Bluesky did not answer: timeout' },
  };

  it("says the source, the query, since when in the workspace's zone, how long and why", () => {
    expect(silenceWording({ queryName: 'Brand', timeZone: 'UTC' }, silence, NOW)).toEqual({
      title: 'Bluesky silent for "Brand"',
      message: 'Bluesky has been silent for "Brand" since 09:12 (6 hours): Bluesky did not answer: timeout.',
    });
    expect(silenceWording({ queryName: 'Brand', timeZone: 'Asia/Kolkata' }, silence, NOW).message).toMatch(
      /since 14:42 \(6 hours\)/,
    );
  });

  it('names the day when the silence began on another, and says no post without a gap', () => {
    const older = { ...silence, since: new Date('2026-11-19T14:20:00Z'), gap: null };
    expect(silenceWording({ queryName: 'Brand', timeZone: 'UTC' }, older, NOW).message).toBe(
      'Bluesky has been silent for "Brand" since 19 Nov 14:20 (25 hours): no new post collected for it.',
    );
    const hour = { ...silence, since: new Date('2026-11-20T14:10:00Z'), gap: null };
    expect(silenceWording({ queryName: 'Brand', timeZone: 'UTC' }, hour, NOW).message).toMatch(/\(1 hour\)/);
  });
});
