import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import type { InspectionEvent } from 'xstate';
import { parseConfig } from './config';
import { installValidationMessages } from './lib/validation-messages';
import { ConfigErrorScreen } from './components/ConfigErrorScreen';
import { App, createApp } from './app';
import { removePrerender, shellDashboardOf } from './lib/prerender';
// react-toastify's stylesheet as a file of the build (its unstyled entry injects no <style>, which the CSP refuses);
// before ours, so that our toast rules win.
import 'react-toastify/dist/ReactToastify.css';
import './styles.css';

installValidationMessages();

/**
 * Lets the browser run what waits (a paint, a click) between two parts of the startup: the evaluation of the entry's
 * modules, the making of the app (config, session, router) and its first render are then three tasks rather than one
 * long one (Total Blocking Time).
 */
const yieldToBrowser = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function start() {
  await yieldToBrowser();
  const makeRoot = () => createRoot(document.getElementById('root') as HTMLElement);
  const parsed = parseConfig(import.meta.env);
  if (!parsed.ok) {
    makeRoot().render(<ConfigErrorScreen problems={parsed.problems} />);
    return;
  }
  const config = parsed.config;

  let inspect: ((event: InspectionEvent) => void) | undefined;
  if (import.meta.env.DEV && config.VITE_INSPECT === 'true') {
    const { createBrowserInspector } = await import('@statelyai/inspect');
    const inspector = createBrowserInspector();
    inspect = (event) => inspector.inspect.next?.(event);
  }

  const app = createApp(config, { inspect });
  app.session.listenToOtherTabs(window);
  // login.html's prerendered sign-in screen: the login page takes it away itself when it draws (in the same frame);
  // anywhere else the first navigation leads (a signed-in visit to /login goes on to a workspace), it goes once that
  // page is ready.
  // A dashboard's shell: that dashboard takes it away when it draws.
  const stopWatchingPrerender = app.router.subscribe('onResolved', ({ toLocation }) => {
    if (toLocation.pathname.replace(/\/$/, '') === '/login') return;
    if (shellDashboardOf(toLocation.pathname) !== null) return;
    removePrerender();
    stopWatchingPrerender();
  });
  // A visit that begins signed in is almost always for a workspace page: its guard (not part of the sign-in screen's
  // first load) starts loading now, beside the first route's own work, rather than when that route's guard runs.
  if (app.session.isLoggedIn()) void import('./routes/-workspace-guard');
  // End-to-end builds only (VITE_E2E=true): lets browser tests drive the real API client. Compiled out otherwise.
  if (import.meta.env.VITE_E2E === 'true') Object.assign(window, { __murmur: app });
  await yieldToBrowser();
  const root = makeRoot();
  // As a transition, React draws the app in slices of a few milliseconds, yielding between them, instead of in one
  // long task that would hold up input (Total Blocking Time); the sign-in screen is already on screen (login.html).
  startTransition(() =>
    root.render(
      <StrictMode>
        <App app={app} />
      </StrictMode>,
    ),
  );

  // Error reporting loads after the first render so it costs nothing on the first load (spec §1 sampling).
  if (config.VITE_SENTRY_DSN) {
    const load = () =>
      void import('./lib/sentry').then(({ startSentry }) =>
        app.reporter.attach(startSentry(config.VITE_SENTRY_DSN, app.router)),
      );
    if ('requestIdleCallback' in window) window.requestIdleCallback(load, { timeout: 3000 });
    else setTimeout(load, 1000);
  }
}

void start();
