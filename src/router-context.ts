// The long-lived things every route can reach, injected once when the router is created.
import type { QueryClient } from '@tanstack/react-query';
import type { InspectionEvent } from 'xstate';
import type { AppConfig } from './config';
import type { Api } from './api/api';
import type { Session } from './api/session';
import type { Analytics } from './lib/analytics';
import type { Reporter } from './lib/reporting';

export interface RouterContext {
  config: AppConfig;
  queryClient: QueryClient;
  api: Api;
  session: Session;
  analytics: Analytics;
  reporter: Reporter;
  /** Receives every decision machine's inspection events (Stately inspector in dev, coverage in tests). */
  inspect?: (event: InspectionEvent) => void;
}
