// A LISTEN on a connection of its own (a LISTEN would keep one of the pool's), made with the pool's settings and made
// again with a growing pause when it is lost. A notification is a hint: each user says what it reads again once it
// listens again (onConnected), since signals sent while it was not listening are lost.
import pg from 'pg';

export interface ListenOptions {
  channel: string;
  /** The connection's application_name (pg_stat_activity). */
  applicationName: string;
  onNotification(payload: string | undefined): void;
  /** Listening (again): what came while it was not must be read another way. */
  onConnected(): void;
  /** The connection failed while listening, or could not connect and listen; it is made again after a pause. */
  onLost?(error: Error, phase: 'listening' | 'connecting'): void;
  reconnectMs?: { first: number; max: number };
}

export function listenOnOwnConnection(pool: pg.Pool, options: ListenOptions): { close(): Promise<void> } {
  const { first, max } = options.reconnectMs ?? { first: 1_000, max: 30_000 };
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let pauseMs = first;
  let closed = false;

  const reconnect = (current: pg.Client) => {
    if (closed || client !== current) return;
    client = undefined;
    current.end().catch(() => {});
    timer = setTimeout(connect, pauseMs);
    timer.unref();
    pauseMs = Math.min(pauseMs * 2, max);
  };

  async function connect() {
    if (closed) return;
    const current = new pg.Client({ ...pool.options, application_name: options.applicationName });
    client = current;
    current.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotification(message.payload);
    });
    current.on('error', (error) => {
      options.onLost?.(error, 'listening');
      reconnect(current);
    });
    current.on('end', () => reconnect(current));
    try {
      await current.connect();
      await current.query(`LISTEN ${options.channel}`);
      pauseMs = first;
      options.onConnected();
    } catch (error) {
      options.onLost?.(error as Error, 'connecting');
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
