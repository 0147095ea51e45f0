// Loaded lazily after the first render (its own chunk), so Sentry and its replay weigh nothing on the first load.
import * as Sentry from '@sentry/react';
import type { AnyRouter } from '@tanstack/react-router';
import type { ReportingBackend } from './reporting';

/** Spec §1 and §9: replay sampled at 0.1 of sessions, 1.0 of sessions with errors; environment production. */
const REPLAY_SESSION_SAMPLE_RATE = 0.1;
const REPLAY_ON_ERROR_SAMPLE_RATE = 1;

export function startSentry(dsn: string, router: AnyRouter): ReportingBackend {
  Sentry.init({
    dsn,
    environment: 'production',
    integrations: [
      Sentry.tanstackRouterBrowserTracingIntegration(router),
      Sentry.replayIntegration({ maskAllText: false, blockAllMedia: false }),
    ],
    tracesSampleRate: 0.1,
    replaysSessionSampleRate: REPLAY_SESSION_SAMPLE_RATE,
    replaysOnErrorSampleRate: REPLAY_ON_ERROR_SAMPLE_RATE,
  });
  return {
    captureException: (error, extra) => {
      Sentry.captureException(error, extra ? { extra } : undefined);
    },
    setUser: (user) => Sentry.setUser(user ? { id: user.id, email: user.email } : null),
  };
}
