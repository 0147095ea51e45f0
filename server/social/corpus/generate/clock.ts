// When posts are written: a daily rhythm in the author's local time (quiet at night, peaks at lunch and in the
// evening), a weekly one (weekends quieter), slow growth over the window, per-topic trends, and bursts.
import { Random, WeightedTable } from './prng';
import type { Burst, Topic, TopicId } from './topics';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Relative posting volume per local hour, 0–23. */
const HOURLY = [
  2.2, 1.5, 1.0, 0.7, 0.6, 0.8, 1.5, 2.8, 3.8, 4.2, 4.3, 4.6, 5.4, 5.0, 4.4, 4.3, 4.5, 4.9, 5.3, 5.8, 6.3,
  6.5, 5.6, 3.9,
];
/** Relative volume per local weekday, Sunday first. */
const WEEKDAY = [0.78, 1.0, 1.07, 1.1, 1.06, 0.97, 0.74];

const HOURS = new WeightedTable(
  HOURLY.map((_, hour) => hour),
  HOURLY,
);

export class Clock {
  /** First instant of the window (UTC midnight). */
  readonly start: number;
  private readonly days: WeightedTable<number>[];
  private readonly byTopic = new Map<TopicId, WeightedTable<number>>();

  constructor(
    /** End of the window (exclusive), a UTC midnight. */
    readonly end: number,
    readonly dayCount: number,
    topics: readonly Topic[],
  ) {
    this.start = end - dayCount * DAY;
    const firstWeekday = new Date(this.start).getUTCDay();
    this.days = [];
    for (const topic of topics) {
      const weights = Array.from({ length: dayCount }, (_, d) => {
        const weekday = (firstWeekday + d) % 7;
        const progress = dayCount > 1 ? d / (dayCount - 1) : 1;
        const growth = 1 + ((topic.growth ?? 1) - 1) * progress * progress;
        const friday = weekday === 5 ? (topic.friday ?? 1) : 1;
        return WEEKDAY[weekday]! * (1 + 0.3 * progress) * growth * friday;
      });
      this.byTopic.set(
        topic.id,
        new WeightedTable(
          weights.map((_, d) => d),
          weights,
        ),
      );
    }
  }

  /** An ordinary moment for a post on the topic by someone `utcOffset` hours east of UTC. */
  organic(random: Random, topic: TopicId, utcOffset: number): number {
    const day = this.byTopic.get(topic)!.index(random);
    const hour = HOURS.index(random);
    let t = this.start + day * DAY + (hour - utcOffset) * HOUR + Math.floor(random.next() * HOUR);
    if (t >= this.end) t -= DAY;
    if (t < this.start) t += DAY;
    return t;
  }

  /** The surge's start, or undefined when it falls outside the window. */
  burstStart(burst: Burst): number | undefined {
    const start = this.end - burst.daysBeforeEnd * DAY + burst.hourUtc * HOUR;
    return start >= this.start && start < this.end ? start : undefined;
  }

  /** A moment in the surge: exponential decay from its start. `late` is true in its last fifth. */
  inBurst(random: Random, burst: Burst, start: number): { time: number; late: boolean } {
    const length = Math.min(burst.days * DAY, this.end - start);
    const offset = (-Math.log(1 - random.next()) * length * 0.3) % length;
    return { time: Math.floor(start + offset), late: offset > 0.8 * length };
  }

  /** A moment after `after` (replies, reposts, quotes): minutes to hours later, never past the window. */
  after(random: Random, after: number): number {
    const delay = Math.floor(random.logNormal(Math.log(40 * 60_000), 1.5));
    return Math.min(this.end - 1_000, after + 5_000 + delay);
  }
}

/** The start of the current UTC day: the default end of the window (re-runs on the same day match). */
export function startOfUtcDay(now = Date.now()): number {
  return Math.floor(now / DAY) * DAY;
}
