// A process running the analytics service on a database and a store directory, for the crash tests
// (test/server/analytics/crash.test.ts). Lines starting with "@@" are for the test: the store's process id, each time
// the feed is caught up, and "held <point>" when a round reaches the point given as the third argument, where it then
// waits until the test kills this process (kill -9). With "exit" as the third argument it stops once caught up.
// Usage: node --import tsx test/support/analytics-applier-child.ts <databaseUrl> <dataDir> [point|exit]
import { AnalyticsService } from '@server/analytics/service';
import { connect } from '@server/db/database';

const [url, dataDir, mode] = process.argv.slice(2);
const say = (line: string) => console.log(`@@ ${line}`);

const database = await connect(url!);
let rounds = 0;
const service = AnalyticsService.start({
  db: database.db,
  pool: database.pool,
  dataDir: dataDir!,
  pollMs: 60_000, // the writers' notification wakes it: no timer in the way of the test
  at: async (point) => {
    if (point !== mode) return;
    rounds += 1;
    say(`held ${point}`);
    await new Promise(() => {}); // until killed
  },
});
for (;;) {
  const position = await service.caughtUpOnce();
  say(`store ${service.store?.pid}`);
  say(`caught-up ${position.seq} ${position.corpusVersion} ${rounds}`);
  if (mode === 'exit') {
    await service.stop();
    await database.close();
    process.exit(0);
  }
}
