// A process running the Mastodon streams of the tracked queries as the server and the worker start them
// (startTrackedMastodonStreams, server/tracking/streams.ts), for the crash test
// (test/server/scraping/mastodon-stream-crash.test.ts), which kills it (kill -9) mid-stream and starts another. Small
// batches, so that some are committed before the kill; any time unheard at a start counts as a gap. Prints
// "@@ started" once it runs.
// Usage: node --import tsx test/support/mastodon-stream-child.ts <databaseUrl>
import { loadCatalogue } from '@server/billing/plans';
import { connect } from '@server/db/database';
import { startTrackedMastodonStreams } from '@server/tracking/streams';

const database = await connect(process.argv[2]!);
startTrackedMastodonStreams(database, loadCatalogue(), {
  allowPrivateHosts: true,
  flushEvents: 5,
  flushMs: 20,
  standbyMs: 100,
  downAfterMs: 0,
  backoff: { baseMs: 50, maxMs: 500 },
  log: (line) => console.log(line),
});
console.log('@@ started');
