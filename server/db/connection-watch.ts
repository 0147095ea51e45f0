// A connection held open to a database only to hear when it goes away (the server behind it killed, restarted or shut
// down: the socket closes, or it says it is shutting down), for the supervisor (server/db/supervisor.ts) of a process
// that uses a database it does not run: `npm run worker`. TCP keepalives find a peer that vanished without a word.
import pg from 'pg';
import type { Supervised } from './supervisor';

/** Connects (and asks once, so that a database still starting up does not count as back) or fails. */
export async function watchConnection(url: string): Promise<Supervised> {
  const client = new pg.Client({
    connectionString: url,
    keepAlive: true,
    application_name: 'murmur worker watch',
  });
  let gone!: (how: string) => void;
  const exited = new Promise<string>((done) => (gone = done));
  let stopping = false;
  client.on('error', (error) => gone(error.message));
  client.on('end', () => gone(stopping ? 'stopped' : 'its connection closed'));
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    exited,
    stop: async () => {
      stopping = true;
      await client.end().catch(() => {});
    },
  };
}
