// knip (part of `npm test`): unused files, exports, types and dependencies, and packages used but not listed.
// Its plugins read the entry points from the tools' own configuration, so none is repeated here (knip flags repeats
// as redundant): Vite's index.html → src/main.tsx; TanStack Router's src/routeTree.gen.ts, which imports every file
// route under src/routes; the package.json scripts run with tsx (server/main.ts, scripts/*.ts); every Vitest project's
// test files, setup file, global setups (test/server, test/browser) and reporter; the ESLint, Vite, Vitest, Drizzle
// and TypeScript configs.
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // System commands the embedded PostgreSQL runs as root to create its account (server/db/postgres-process.ts), and
  // poppler's, which the PDF reports' test reads them back with (.ci/run installs them).
  ignoreBinaries: ['groupadd', 'useradd', 'pdftotext', 'pdftoppm'],
  // The analytics-engine lab's scripts: a record of a measurement, run apart from the app (docs/analytics-lab/README.md).
  // The analytics store's process, the feed's process of the crash test, the sentiment rescan's process of its kill -9
  // test, the ClickHouse HTTP front of the tests of ANALYTICS_URL and the Bluesky and Mastodon streams' processes of
  // their crash tests: started by path, not imported.
  entry: [
    'server/analytics/child.ts',
    'test/support/analytics-applier-child.ts',
    'test/support/sentiment-rescan-child.ts',
    'test/support/clickhouse-http-server.ts',
    'test/support/jetstream-child.ts',
    'test/support/mastodon-stream-child.ts',
  ],
};

export default config;
