// The drivers in one sentence (contract/insights-drivers.ts, driversSentence): as the app's panel and the alerts say
// them.
import { describe, expect, it } from 'vitest';
import { driversSentence, type Driver } from '@contract/insights-drivers';

const driver = (kind: Driver['kind'], label: string, posts: number, window: number): Driver => ({
  kind,
  value: label.replace(/^[#@]/, ''),
  label,
  posts,
  baseline_posts: 0,
  expected: 0,
  lift: null,
  excess_share: null,
  share: posts / window,
  g2: 1,
});

describe('driversSentence', () => {
  it('names the first value and the accounts among the drivers with their shares', () => {
    const posts = { window: 1550, baseline: 2170, expected: 310, excess: 1240 };
    const drivers = [
      driver('author', '@techdaily_news', 300, 1550),
      driver('term', 'outage', 1100, 1550),
      driver('author', '@cloudnest_status', 200, 1550),
      driver('hashtag', '#down', 900, 1550),
      driver('author', '@nestwatch', 89, 1550),
      driver('author', '@fourth', 500, 1550),
    ];
    expect(driversSentence({ posts, drivers })).toBe(
      '+1,240 posts against 310 expected: 71 % of them with outage, 38 % from 3 accounts led by @techdaily_news.',
    );
  });

  it('says one account by its name', () => {
    const posts = { window: 12, baseline: 0, expected: 0, excess: 12 };
    expect(driversSentence({ posts, drivers: [driver('author', '@nestwatch', 12, 12)] })).toBe(
      '+12 posts against 0 expected: 100 % from @nestwatch.',
    );
  });

  it('says when there is no excess, or nothing stands out', () => {
    const posts = { window: 40, baseline: 350, expected: 50, excess: -10 };
    expect(driversSentence({ posts, drivers: [driver('term', 'coffee', 30, 40)] })).toBe(
      '40 posts against 50 expected: no excess to explain; these values still took a larger share of the posts.',
    );
    expect(driversSentence({ posts, drivers: [] })).toBe(
      '40 posts against 50 expected: no excess to explain.',
    );
    const excess = { window: 60, baseline: 350, expected: 50, excess: 10 };
    expect(driversSentence({ posts: excess, drivers: [] })).toBe(
      '+10 posts against 50 expected: no value stands out.',
    );
  });
});
