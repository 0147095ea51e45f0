// The Mastodon streams of every instance a query is tracked on (server/tracking/streams.ts): one consumer per instance
// (mastodon-stream.ts), started and stopped as tracking changes; and, at the start and every 6 hours, the status ids
// kept for deletes forgotten once their post is no longer held (stream-store.ts).
import { startMastodonStream, type MastodonConsumer, type MastodonStreamOptions } from './mastodon-stream';
import { forgetGoneStatusIds } from './stream-store';

const FORGET_EVERY_MS = 6 * 3_600_000;

/** What each instance's stream is given by the tracking that starts it. */
type InstanceParts = 'queries' | 'record' | 'onGap' | 'onCovered' | 'onUnheard';

export interface MastodonStreamsOptions extends Omit<MastodonStreamOptions, 'instance' | InstanceParts> {
  /** The instances the tracked queries are tracked on now (their origins). */
  instances(): Promise<string[]>;
  /** What each instance's stream is given (server/tracking/streams.ts). */
  forInstance(instance: string): Pick<MastodonStreamOptions, InstanceParts>;
}

/**
 * A stream for each instance a query is tracked on, started and stopped as tracking changes (read again at `refresh`,
 * and every `refreshMs`).
 */
export function startMastodonStreams(options: MastodonStreamsOptions): MastodonConsumer {
  const { instances, forInstance, refreshMs = 60_000, log = console.log, ...rest } = options;
  const running = new Map<string, MastodonConsumer>();
  let stopped = false;
  let reading: Promise<void> = Promise.resolve();
  const refresh = () =>
    (reading = reading.then(async () => {
      if (stopped) return;
      let wanted: string[];
      try {
        wanted = await instances();
      } catch (error) {
        return log(
          `Mastodon streams: the tracked instances could not be read (${(error as Error).message}).`,
        );
      }
      for (const [instance, consumer] of running)
        if (!wanted.includes(instance)) {
          running.delete(instance);
          await consumer.stop();
        }
      for (const instance of wanted) {
        const consumer = running.get(instance);
        if (consumer) await consumer.refresh();
        else
          running.set(
            instance,
            startMastodonStream({ ...rest, refreshMs, log, instance, ...forInstance(instance) }),
          );
      }
    }));
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref();
  void refresh();
  const forget = () =>
    void forgetGoneStatusIds(options.pool).catch((error: unknown) => {
      log(
        `Mastodon streams: the status ids of posts gone could not be forgotten (${(error as Error).message}).`,
      );
    });
  forget();
  const forgetting = setInterval(forget, FORGET_EVERY_MS);
  forgetting.unref();
  return {
    status: () => {
      const all = [...running.values()].map((consumer) => consumer.status());
      return {
        connected: all.length > 0 && all.every((s) => s.connected),
        connections: all.reduce((n, s) => n + s.connections, 0),
        events: all.reduce((n, s) => n + s.events, 0),
        matched: all.reduce((n, s) => n + s.matched, 0),
        refused: all.reduce((n, s) => n + s.refused, 0),
      };
    },
    refresh,
    async stop() {
      clearInterval(timer);
      clearInterval(forgetting);
      await reading;
      stopped = true;
      await Promise.all([...running.values()].map((consumer) => consumer.stop()));
      running.clear();
    },
  };
}
