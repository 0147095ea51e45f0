// Wires the long-lived pieces once: reporter, session actor, API, query client, analytics, router.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createRouter, RouterProvider, type RouterHistory } from '@tanstack/react-router';
import { parseSearch, stringifySearch } from './lib/search-params';
import type { InspectionEvent } from 'xstate';
import { routeTree } from './routeTree.gen';
import type { AppConfig } from './config';
import { createApi } from './api/api';
import { createSession } from './api/session';
import { createAnalytics, domEventTransport, type AnalyticsTransport } from './lib/analytics';
import { createReporter, type Reporter } from './lib/reporting';
import { keepReturnTo } from './lib/return-to';
import { ErrorScreen } from './components/ErrorScreen';
import { NotFound } from './components/NotFound';
import { Pending } from './components/Pending';

export interface AppOptions {
  storage?: Storage;
  history?: RouterHistory;
  fetch?: typeof fetch;
  reporter?: Reporter;
  analytics?: AnalyticsTransport;
  inspect?: (event: InspectionEvent) => void;
}

export function createApp(config: AppConfig, options: AppOptions = {}) {
  const storage = options.storage ?? window.localStorage;
  const reporter =
    options.reporter ?? createReporter({ log: import.meta.env.DEV ? console.warn.bind(console) : undefined });
  // Spec §9: no automatic query retries, no refetch on window focus (the HTTP client does its own retries).
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  });

  let goToLogin: () => void = () => window.location.assign('/login');
  const session = createSession({
    storage,
    reporter,
    refresh: (refreshToken) => api.refresh(refreshToken),
    navigateToLogin: () => goToLogin(),
    inspect: options.inspect,
  });
  const api = createApi({
    apiBaseUrl: config.VITE_API_BASE_URL,
    socialApiBaseUrl: config.VITE_SOCIAL_API_BASE_URL,
    reporter,
    gate: session.gate,
    onMeUnauthorized: () => session.meUnauthorized(),
    fetch: options.fetch,
  });

  const router = createRouter({
    routeTree,
    history: options.history,
    context: {
      config,
      queryClient,
      api,
      session,
      reporter,
      analytics: createAnalytics(options.analytics ?? domEventTransport),
      inspect: options.inspect,
    },
    parseSearch,
    stringifySearch,
    defaultPreload: 'intent',
    defaultErrorComponent: ErrorScreen,
    defaultNotFoundComponent: NotFound,
    defaultPendingComponent: () => <Pending />,
    scrollRestoration: true,
  });
  goToLogin = () => {
    // The session ended without the user signing out here (a refresh refused, a sign-out in another tab): the page
    // open is kept, as requireLogin keeps one opened signed out, for after the next sign-in in this tab.
    const { href, pathname } = router.latestLocation;
    if (!pathname.startsWith('/login')) keepReturnTo(href);
    queryClient.clear();
    void router.navigate({ to: '/login', search: {} });
  };

  return { router, queryClient, session, api, reporter };
}

export type MurmurApp = ReturnType<typeof createApp>;

declare module '@tanstack/react-router' {
  interface Register {
    router: MurmurApp['router'];
  }
}

export function App({ app }: { app: MurmurApp }) {
  return (
    <QueryClientProvider client={app.queryClient}>
      <RouterProvider router={app.router} />
    </QueryClientProvider>
  );
}
