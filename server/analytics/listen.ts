// The writers' notification that the outbox has a new batch (analytics_outbox_append, migration 0021), heard on a
// connection of its own (a LISTEN would keep one of the pool's). Only a hint: the applier also looks on a timer, so
// a lost connection delays batches by that much and loses none.
import pg from 'pg';

const OUTBOX_CHANNEL = 'murmur_analytics_outbox';
const RECONNECT_MS = { first: 1_000, max: 30_000 };

export function listenForBatches(pool: pg.Pool, onBatch: () => void): { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let pauseMs = RECONNECT_MS.first;
  let closed = false;

  const reconnect = (current: pg.Client) => {
    if (closed || client !== current) return;
    client = undefined;
    current.end().catch(() => {});
    timer = setTimeout(connect, pauseMs);
    timer.unref();
    pauseMs = Math.min(pauseMs * 2, RECONNECT_MS.max);
  };

  async function connect() {
    if (closed) return;
    const current = new pg.Client({ ...pool.options, application_name: 'murmur analytics feed' });
    client = current;
    current.on('notification', (message) => message.channel === OUTBOX_CHANNEL && onBatch());
    current.on('error', () => reconnect(current));
    current.on('end', () => reconnect(current));
    try {
      await current.connect();
      await current.query(`LISTEN ${OUTBOX_CHANNEL}`);
      pauseMs = RECONNECT_MS.first;
      onBatch(); // what came while it was not listening
    } catch {
      reconnect(current);
    }
  }
  void connect();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
