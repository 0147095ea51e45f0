// A process running the Bluesky stream consumer (server/scraping/streams/jetstream.ts) for the crash test
// (test/server/scraping/jetstream-crash.test.ts), which kills it (kill -9) mid-stream and starts another. Its queries
// are the third argument (a JSON array of { id, text }); small batches, so that some are committed before the kill.
// Prints "@@ started" once connected.
// Usage: node --import tsx test/support/jetstream-child.ts <databaseUrl> <jetstreamUrl> <queriesJson>
import { connect } from '@server/db/database';
import { startJetstream, type StreamQuery } from '@server/scraping/streams/jetstream';

const [url, jetstreamUrl, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson!) as StreamQuery[];
const database = await connect(url!);
await startJetstream({
  pool: database.pool,
  url: jetstreamUrl!,
  queries: async () => queries,
  flushEvents: 10,
  flushMs: 50,
  overlapMs: 2_000,
  backoff: { baseMs: 50, maxMs: 500 },
  log: (line) => console.log(line),
});
console.log('@@ started');
