// `npm start`: the whole product on one port — the SPA, the internal API and PostgreSQL (embedded by default).
// `npm run dev` (scripts/dev.ts) starts the same server without the SPA build, beside Vite's dev server.
import { resolve } from 'node:path';
import { loadServerConfig } from './config';
import { loadCatalogue } from './billing/plans';
import { retentionProblem } from './social/corpus/partitions';
import { connectReplicas, openConfiguredDatabase } from './db/database';
import { buildApp, type AppDeps } from './app';
import { ensureSpaBuild } from './spa-build';
import { ensurePortFree } from './http-server';
import { createAccessTokens } from './auth/access-token';
import { createHmac } from 'node:crypto';
import { loadSigningKey } from './auth/signing-key';
import { seedDemoCorpus, seedDevData } from './seed';
import { housekeepingJob } from './housekeeping';
import { httpOptionsOf, sourceUrlsOf, startCollector, type Collector } from './scraping/collector';
import { startTrackedBlueskyStream, startTrackedMastodonStreams } from './tracking/streams';
import { trackingPollJob } from './tracking/poll';
import { uploadDirOf } from './scraping/uploads';
import { checkSecretsKey, loadSecretsKey } from './scraping/credentials';
import { billingJob } from './billing/job';
import { schedulePeriodic, startQueue } from './scheduler';
import { sentimentRescanJob } from './social/corpus/rescan';
import type { PgBoss } from 'pg-boss';
import { startAnalytics } from './analytics/start';
import { prepareSavedQueries } from './social/insights/prepared-sets';
import type { AnalyticsService } from './analytics/service';
import { startMail } from './mail/start';
import { alertJobs, evaluateAfterBatches } from './alerts/job';
import { tagRulesJob } from './tags/apply';

const root = resolve(import.meta.dirname, '..');

export interface StartOptions {
  /** Serve the SPA's production build (npm start); false when Vite serves it (npm run dev). */
  serveSpa: boolean;
  /** Origins allowed to call the API cross-origin (Vite's dev server). */
  corsOrigins?: string[];
  /**
   * A build of the SPA made by the caller for this server's origin, served as it is instead of building dist/ (the
   * screenshot and dashboard-timing scripts run on their own ports); `origins` are those its config calls.
   */
  prebuiltSpa?: { dir: string; origins: string[] };
}

/** How long a shutdown may take before the database is stopped under what still runs. */
const SHUTDOWN_DEADLINE_MS = 30_000;

/** Stops what is given (the database last), then fails with the same error. */
const stopFirst =
  (...running: { close(): Promise<void> }[]) =>
  async (error: unknown): Promise<never> => {
    for (const part of running) await part.close();
    throw error;
  };

export async function startServer({ serveSpa, corsOrigins, prebuiltSpa }: StartOptions) {
  const config = loadServerConfig();
  const retention = retentionProblem(config.CORPUS_RETENTION_DAYS, loadCatalogue(config.BILLING_PLANS_FILE));
  if (retention) throw new Error(retention);
  const spaDir = serveSpa ? (prebuiltSpa?.dir ?? resolve(root, 'dist')) : undefined;
  await ensurePortFree(config.HOST, config.PORT, 'PORT');
  // The database first: what keeps it from starting (a port in use, a data directory out of reach) is said before
  // minutes go into a build.
  // An embedded PostgreSQL that dies is started again (server/db/supervisor.ts); when every try failed, one line and a
  // non-zero exit code, for whatever supervises this process to start it afresh.
  const primary = await openConfiguredDatabase(config, root, {
    onGiveUp: (line) => {
      console.error(line);
      process.exit(1);
    },
  });
  console.log(`Database: ${primary.describe}${config.DATABASE_URL ? '' : ' (embedded)'}`);
  // Read replicas (DATABASE_READ_URL, docs/replicas.md): pools that connect on first use, closed with the primary.
  const replicas = connectReplicas(config.DATABASE_READ_URL);
  for (const replica of replicas.replicas) console.log(`Read replica: ${replica.describe}`);
  const database = {
    ...primary,
    close: async () => {
      await replicas.close();
      await primary.close();
    },
  };
  // Outgoing e-mail, and the development mailbox when it is on: its port, like the database's, is checked before a build.
  const mail = await startMail(config).catch(stopFirst(database));
  const connectOrigins = !spaDir
    ? []
    : (prebuiltSpa?.origins ?? (await ensureSpaBuild(root, spaDir, config).catch(stopFirst(mail, database))));
  const dataDir = resolve(root, config.DATA_DIR);
  const signingKey = loadSigningKey(config.JWT_SIGNING_KEY, dataDir);
  const secretsKey = loadSecretsKey(config, dataDir);
  const accessTokens = createAccessTokens(signingKey, config.ACCESS_TOKEN_TTL_SECONDS);
  // The server's secret for derived keys (server/keys.ts), from the signing key: stable across restarts.
  const secret = createHmac('sha256', signingKey).update('murmur server secret').digest();
  const deps: AppDeps = {
    db: database.db,
    analyticsDb: database.analyticsDb,
    readReplicas: replicas.replicas,
    accessTokens,
    secret,
    config,
    spaDir,
    connectOrigins,
    // Locally only warnings and errors (no line per request); elsewhere every request too.
    logger: { level: config.APP_ENV === 'local' ? 'warn' : 'info' },
    dataDir,
    ...(secretsKey && { secretsKey }),
    corsOrigins,
    databaseStatus: primary.status,
    mailer: mail.mailer,
    devMailbox: mail.devMailbox,
  };
  const app = await buildApp(deps).catch(stopFirst(mail, database));

  let stopping = false;
  let queue: PgBoss | undefined;
  let collector: Collector | undefined;
  let stream: { stop(): Promise<void> } | undefined;
  let mastodon: { stop(): Promise<void> } | undefined;
  let analytics: AnalyticsService | null = null;
  // A shutdown asked for (Ctrl-C, SIGTERM) stops what uses the database, then the database (an embedded PostgreSQL is
  // this process's child, in a process group of its own: the signal reaches it only from here), and says nothing more
  // than that it does. Each part's failure is its own: the next ones, PostgreSQL last, are stopped all the same; past
  // SHUTDOWN_DEADLINE_MS (a request that does not end) the database is stopped under what still runs.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: shutting down…`);
    const deadline = setTimeout(() => {
      console.error(
        `Shutdown took over ${SHUTDOWN_DEADLINE_MS / 1000} s; stopping the database under what still runs.`,
      );
      void database.close().finally(() => process.exit(1));
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    const settle = (step: () => Promise<unknown> | undefined) =>
      Promise.resolve()
        .then(step)
        .catch(() => {});
    await settle(() => app.close());
    await settle(() => stream?.stop());
    await settle(() => mastodon?.stop());
    await settle(() => collector?.stop());
    await settle(() => queue?.stop({ graceful: true, timeout: 10_000 }));
    await settle(() => analytics?.stop());
    await settle(() => mail.close());
    await settle(() => database.close());
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    // Stored source credentials no key can open would fail every job that uses them: refuse to start instead.
    await checkSecretsKey(database.pool, secretsKey);
    if ((await seedDevData(database.db, config)).createdWorkspace) {
      console.log('Development data: demo accounts and the "Murmur Demo" workspace were created.');
    }
    const demo = await seedDemoCorpus(database.pool, config);
    if (demo.seeded) {
      console.log(
        `Demo corpus: ${demo.posts.toLocaleString('en-US')} synthetic posts by ${demo.profiles.toLocaleString('en-US')} ` +
          `profiles loaded in ${(demo.elapsedMs / 1000).toFixed(1)} s (CORPUS_DEMO_POSTS=0 turns this off).`,
      );
    }
    // After the demo corpus: a store rebuilt from its snapshot rather than fed its seeding batch by batch.
    analytics = await startAnalytics(config, database, dataDir);
    deps.analytics = analytics ?? undefined;
    // The long saved queries changed last have their matches found once the store has caught up (prepared-sets.ts).
    const service = analytics;
    if (service)
      void service
        .caughtUpOnce()
        .then(async () => {
          const prepared = await prepareSavedQueries(database.db, service);
          if (prepared)
            console.log(
              `Analytics store: the matches of ${prepared} long saved quer${prepared === 1 ? 'y' : 'ies'} prepared.`,
            );
        })
        .catch((error: unknown) => console.warn(`Saved queries' matches not prepared: ${String(error)}`));
    await app.listen({ host: config.HOST, port: config.PORT });
    // Every periodic job on one queue in the database (server/scheduler.ts): once per period across servers.
    queue = await startQueue(config, { pool: database.pool });
    // Collection jobs: queued here always; run here too unless SCRAPING_WORKER=off (then by npm run worker).
    collector = await startCollector({
      boss: queue,
      pool: database.pool,
      config,
      uploadDir: uploadDirOf(config, dataDir),
      work: config.SCRAPING_WORKER === 'in-process',
      secretsKey,
    });
    deps.collector = collector;
    // Bluesky's firehose where collection runs (one process per database streams: server/scraping/streams).
    if (config.SCRAPING_BLUESKY_STREAM && config.SCRAPING_WORKER === 'in-process') {
      stream = startTrackedBlueskyStream(database, app.billing.catalogue, config.JETSTREAM_URL, {
        handles: { url: config.SCRAPING_BLUESKY_URL, http: httpOptionsOf(config) },
      });
    }
    // Mastodon's streaming API of the instances queries are tracked on, likewise (server/tracking/streams.ts).
    if (config.SCRAPING_MASTODON_STREAM && config.SCRAPING_WORKER === 'in-process') {
      mastodon = startTrackedMastodonStreams(database, app.billing.catalogue, {
        allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
      });
    }
    // Trials ending, renewals, past-due plans running out; the built-in provider's expiries and webhook retries.
    const builtin = app.builtinPayments;
    const boss = queue;
    await schedulePeriodic(queue, [
      housekeepingJob(database.db, { corpusRetentionDays: config.CORPUS_RETENTION_DAYS }),
      // Tracked saved queries on the polled sources (Hacker News, Reddit, YouTube, X, feeds; Bluesky and Mastodon
      // backfilled): server/tracking/poll.ts.
      trackingPollJob({
        pool: database.pool,
        db: database.db,
        catalogue: app.billing.catalogue,
        http: httpOptionsOf(config),
        urls: sourceUrlsOf(config),
        secretsKey,
      }),
      // Posts scored by another version of the sentiment model rescored in the background (issue 53, item 5).
      sentimentRescanJob(database.pool),
      // Tag rules carried on over the posts stored since (issue 55, item 3): server/tags/apply.ts.
      tagRulesJob(database.db),
      billingJob(app.billing, {
        extra: builtin ? async () => (await builtin.expireDue(), await builtin.deliverDue()) : undefined,
      }),
      // Alert rules every minute and after each batch the store applies; their e-mails and webhooks (docs/alerts.md).
      ...alertJobs({
        db: database.db,
        analyticsDb: database.analyticsDb,
        analytics: () => deps.analytics,
        boss: () => boss,
        mailer: mail.mailer,
        appUrl: config.APP_URL,
        unsubscribeKey: app.keys.alertUnsubscribe,
        digestUnsubscribeKey: app.keys.digestUnsubscribe,
        allowPrivateHosts: config.SCRAPING_ALLOW_PRIVATE_HOSTS,
      }),
    ]);
    if (analytics) evaluateAfterBatches(analytics, queue);
  } catch (error) {
    // Stopped while starting (Ctrl-C during the demo corpus's seeding): what failed is what stop() closed under it;
    // stop() finishes and exits 0, and nothing more is said.
    if (stopping) return;
    await stream?.stop().catch(() => {});
    await mastodon?.stop().catch(() => {});
    await collector?.stop().catch(() => {});
    await queue?.stop({ graceful: false }).catch(() => {});
    await analytics?.stop().catch(() => {});
    await app.close();
    await mail.close().catch(() => {});
    await database.close();
    throw error;
  }
  const host = config.HOST === '0.0.0.0' || config.HOST === '127.0.0.1' ? 'localhost' : config.HOST;
  console.log(
    spaDir
      ? `Murmur is running at http://${host}:${config.PORT}/  (API docs: /api/docs)`
      : `Murmur API at http://${host}:${config.PORT}/api/  (docs: /api/docs)`,
  );
  if (config.DEV_OIDC) console.log(`Development sign-in (OpenID provider): ${config.DEV_OIDC_ISSUER}`);
  if (mail.devMailbox) {
    console.log(
      `Development mailbox: ${mail.devMailbox.url}, messages at http://${host}:${config.PORT}/dev/mailbox`,
    );
  } else if (!mail.mailer) {
    console.log('E-mail: off (set SMTP_URL).');
  }
  if (config.PAYMENT_PROVIDER === 'builtin') {
    console.log(`Card checkout: the built-in test provider at ${config.PAYMENT_SERVER_URL}`);
  } else if (config.PAYMENT_PROVIDER === 'none') {
    console.log('Card checkout: off (set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET).');
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  startServer({ serveSpa: true }).catch((error: unknown) => {
    console.error(`Murmur could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
