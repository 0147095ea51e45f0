// The analytics store as `npm start` runs it (ANALYTICS_STORE): the service on DATA_DIR/analytics (or on the ClickHouse
// server at ANALYTICS_URL), or, when off, no store and no outbox kept for one.
import { join } from 'node:path';
import type { ServerConfig } from '@server/config';
import type { Db } from '@server/db/database';
import type pg from 'pg';
import { unregisterConsumer } from './outbox';
import { AnalyticsService } from './service';
import { parseAnalyticsUrl } from './url';

export async function startAnalytics(
  config: Pick<
    ServerConfig,
    'ANALYTICS_STORE' | 'ANALYTICS_URL' | 'ANALYTICS_MAX_THREADS' | 'ANALYTICS_READ_WAIT_MS'
  >,
  database: { db: Db; pool: pg.Pool },
  dataDir: string,
): Promise<AnalyticsService | null> {
  if (config.ANALYTICS_STORE === 'off') {
    // A store left registered would have the writers fill an outbox nobody reads; it is rebuilt when turned on.
    if (await unregisterConsumer(database.db)) {
      console.log('Analytics store: off (ANALYTICS_STORE=off); the outbox is no longer written.');
    }
    return null;
  }
  const dir = join(dataDir, 'analytics');
  const url = config.ANALYTICS_URL;
  // Where the store is, never the URL's credentials.
  const where = url ? `the ClickHouse server at ${parseAnalyticsUrl(url).endpoint}` : dir;
  console.log(`Analytics store: ${where} (figures are answered 503 figures_preparing until it is ready)`);
  return AnalyticsService.start({
    ...database,
    dataDir: dir,
    url,
    maxThreads: config.ANALYTICS_MAX_THREADS,
    readWaitMs: config.ANALYTICS_READ_WAIT_MS,
  });
}
