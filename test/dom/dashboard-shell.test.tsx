// A dashboard's prerendered shell (shell-<dashboard>.html: scripts/vite-prerender-login.ts, scripts/prerender-shell-markup.tsx)
// is the app's own drawing of that dashboard while its answer is on the way, less what only the user's data says (the
// workspace's name in the switcher, the e-mail, the links' targets, the trial notice, the scope bar): the heading and
// the skeleton byte for byte, the header and both navigations element for element. Otherwise the swap from the shell to
// the app would jump. The dashboard takes the shell away when it draws; a signed-out visit ends on the sign-in screen,
// which takes it away too.
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, createApp, type MurmurApp } from '@/app';
import { ANY_WORKSPACE } from '@/components/Topbar';
import { DASHBOARD_PAGES } from '@/features/insight/dashboard-pages';
import { PRERENDER_ID, SHELL_DASHBOARDS, shellDashboardOf } from '@/lib/prerender';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { shellMarkup } from '@scripts/prerender-shell-markup';
import { bootScript, shellGateScript, withShell } from '@scripts/vite-prerender-login';
import { currentUserFixture, workspaceFixture } from '@test/support/contract.fixtures';
import {
  fakeJwt,
  nowSeconds,
  shellReply,
  startFakeHttp,
  type FakeHttp,
  type FakeReply,
} from '@test/support/fake-http';
import { testConfig } from '@test/support/router-harness';

const SELF = '00000000-0000-4000-8000-000000000001';

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];
let release: Array<() => void> = [];
afterEach(async () => {
  cleanup();
  release.forEach((done) => done());
  release = [];
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
  document.getElementById(PRERENDER_ID)?.remove();
  document.documentElement.classList.remove('has-session');
  vi.restoreAllMocks();
});

/** The shell in the page as its shell page puts it. */
function layShell(dashboard: (typeof SHELL_DASHBOARDS)[number]): HTMLElement {
  const shell = document.createElement('div');
  shell.id = PRERENDER_ID;
  shell.setAttribute('data-shell', '');
  shell.setAttribute('inert', '');
  shell.innerHTML = shellMarkup(dashboard);
  document.body.append(shell);
  return shell;
}

/** The app at `url` against a fake backend whose dashboard answers are held until the test ends. */
async function visit(url: string, { signedIn = true } = {}) {
  const server = await startFakeHttp();
  server.handle = (request): FakeReply | Promise<FakeReply> => {
    const shell = shellReply(request);
    if (shell) return shell;
    if (request.path.startsWith('/social/insights/')) {
      return new Promise((resolve) => release.push(() => resolve('drop')));
    }
    const key = `${request.method} ${request.path.replace(/^\/api\//, '')}`;
    if (key === 'GET users/me')
      return { status: 200, body: currentUserFixture(SELF, [workspaceFixture('w1')]) };
    if (key === 'GET workspaces/w1') return { status: 200, body: workspaceFixture('w1') };
    if (key === 'GET workspaces/w1/saved-queries') {
      return { status: 200, body: { saved_queries: [], usage: { count: 0, limit: 25 } } };
    }
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  if (signedIn) {
    localStorage.setItem(
      AUTH_TOKENS_KEY,
      JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
    );
  }
  vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
  const history = createMemoryHistory({ initialEntries: [url] });
  const app = createApp(
    { ...testConfig(`${server.url}/api/`), VITE_SOCIAL_API_BASE_URL: `${server.url}/social/` },
    { history, analytics: () => {} },
  );
  running.push({ app, server });
  const { container } = render(<App app={app} />);
  return { container, history };
}

/**
 * An element as the shell can draw it: only the attributes that style or name it (class, aria-*, role, type, id,
 * tabindex), without what only the user's data says (the e-mail; the switcher names "Your workspaces"; where the brand
 * leads).
 */
function frameOf(element: Element): string {
  const copy = element.cloneNode(true) as Element;
  copy.querySelectorAll('.account-email').forEach((node) => node.remove());
  copy.querySelectorAll('.switcher-current').forEach((node) => (node.textContent = ANY_WORKSPACE));
  // The router marks the link of the place the user is in (class active; aria-current, which the shell draws on the
  // navigation's links but not on the brand, whose target only users/me decides).
  copy.querySelectorAll('.active').forEach((node) => node.classList.remove('active'));
  copy.querySelector('.brand')?.removeAttribute('aria-current');
  for (const node of [copy, ...copy.querySelectorAll('*')]) {
    for (const { name } of [...node.attributes]) {
      if (!/^(class|aria-.*|role|type|id|tabindex)$/.test(name)) node.removeAttribute(name);
    }
  }
  return copy.outerHTML;
}

describe("a dashboard's prerendered shell", () => {
  it.each(SHELL_DASHBOARDS)(
    'is what the app draws at /insight/%s while the answer is on the way',
    async (dashboard) => {
      const shell = document.createElement('div');
      shell.innerHTML = shellMarkup(dashboard);
      expect(shell.querySelector('h1')?.textContent).toBe(DASHBOARD_PAGES[dashboard].title);

      const { container } = await visit(`/workspace/w1/insight/${dashboard}`);
      await screen.findByRole('status', { name: 'Loading the dashboard' });
      const app = (selector: string) => container.querySelector(selector);
      const drawn = (selector: string) => shell.querySelector(selector);
      // The page's own part, byte for byte.
      expect(drawn('.page-header')?.outerHTML).toBe(app('.page-header')?.outerHTML);
      expect(drawn('.skeleton-grid')?.outerHTML).toBe(app('.skeleton-grid')?.outerHTML);
      // The frame, element for element.
      for (const selector of ['.topbar', '.sidebar', '.section-nav', '.skip-link']) {
        expect(frameOf(drawn(selector)!), selector).toBe(frameOf(app(selector)!));
      }
      expect(app('.workspace-shell > main')?.className).toBe(drawn('.workspace-shell > main')?.className);
      // Nothing of the user in the shell: no e-mail, no workspace name.
      expect(shell.textContent).not.toContain('w1');
      expect(shell.innerHTML).not.toContain('@');
    },
  );

  it('is taken away when the dashboard draws, leaving one page and unique ids', async () => {
    const shell = layShell('overview');
    await visit('/workspace/w1/insight/overview');
    await waitFor(() => expect(shell.isConnected).toBe(false));
    expect(document.querySelectorAll('.workspace-shell')).toHaveLength(1);
    expect(document.querySelectorAll('#page-title')).toHaveLength(1);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Overview');
  });

  it('gives way to the sign-in screen for a visitor without a session, who lands on /login', async () => {
    const shell = layShell('overview');
    const { history } = await visit('/workspace/w1/insight/overview', { signedIn: false });
    await screen.findByRole('heading', { name: 'Sign in to Murmur' });
    expect(history.location.pathname).toBe('/login');
    expect(shell.isConnected).toBe(false);
  });

  it('belongs to the dashboards that have one, and to /insight (the overview), nothing else', () => {
    expect(shellDashboardOf('/workspace/w1/insight/overview')).toBe('overview');
    expect(shellDashboardOf('/workspace/w1/insight')).toBe('overview');
    expect(shellDashboardOf('/workspace/w1/insight/people/')).toBe('people');
    expect(shellDashboardOf('/workspace/w1/insight/posts')).toBeNull();
    expect(shellDashboardOf('/workspace/w1/saved-queries')).toBeNull();
    expect(shellDashboardOf('/login')).toBeNull();
  });

  it('is shown only in a browser that holds a session (the gate before the body)', () => {
    new Function(shellGateScript())();
    expect(document.documentElement.classList.contains('has-session')).toBe(false);
    localStorage.setItem(AUTH_TOKENS_KEY, '{}');
    new Function(shellGateScript())();
    expect(document.documentElement.classList.contains('has-session')).toBe(true);
  });

  it('lies beside the app root of index.html with its stylesheets, the app started by the boot script', () => {
    const html =
      '<head>\n    <script type="module" crossorigin src="/assets/a.js"></script>\n' +
      '    <link rel="modulepreload" crossorigin href="/assets/b.js">\n' +
      '    <link rel="stylesheet" crossorigin href="/assets/d.css">\n  </head>\n  <body>\n    <div id="root"></div>\n  </body>';
    const page = withShell(html, '<div>x</div>', '/assets/boot.js', ['/assets/e.css']);
    expect(page.entry).toBe('/assets/a.js');
    expect(page.preloads).toEqual(['/assets/b.js']);
    expect(page.html).toBe(
      '<head>\n    <link rel="stylesheet" crossorigin href="/assets/d.css">\n' +
        '    <link rel="stylesheet" crossorigin href="/assets/e.css">\n    <script src="/assets/boot.js"></script>\n  </head>\n  <body>\n' +
        `    <div id="root"></div><div id="${PRERENDER_ID}" data-shell="" inert=""><div>x</div></div>\n  </body>`,
    );
    // The shell's boot script keeps no sign-in press (the shell has no sign-in button).
    expect(bootScript('/a.js', [], { queueSignIn: false })).not.toContain('click');
    expect(bootScript('/a.js', [])).toContain('click');
  });

  describe("preloads the address's dashboard chunks after the first contentful paint, one per task", () => {
    const dashboardPreloads = {
      common: ['/assets/c1.js', '/assets/c2.js'],
      own: { people: ['/assets/p.js'] },
    };
    let paint: (() => void) | null = null;
    const added = () =>
      [...document.head.querySelectorAll('link[rel="modulepreload"]')].map((el) => el.getAttribute('href'));

    function boot(path: string) {
      window.history.replaceState(null, '', path);
      vi.useFakeTimers();
      vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => {
        callback(0);
        return 0;
      });
      // The paint timeline: the callback gets the first contentful paint when the test says it was presented.
      vi.stubGlobal(
        'PerformanceObserver',
        class {
          constructor(private readonly callback: PerformanceObserverCallback) {}
          observe() {
            paint = () =>
              this.callback(
                {
                  getEntriesByName: (name: string) => (name === 'first-contentful-paint' ? [{}] : []),
                } as never,
                this as never,
              );
          }
          disconnect() {
            paint = null;
          }
        },
      );
      new Function(
        bootScript('/assets/entry.js', ['/assets/e.js'], { queueSignIn: false, dashboardPreloads }),
      )();
      vi.advanceTimersByTime(0);
    }

    afterEach(() => {
      vi.useRealTimers();
      vi.unstubAllGlobals();
      paint = null;
      document.head
        .querySelectorAll('link[rel="modulepreload"], script[type="module"]')
        .forEach((el) => el.remove());
      window.history.replaceState(null, '', '/');
    });

    /** One task of the boot script's queue (a MessageChannel turn). */
    const turn = () =>
      new Promise<void>((resolve) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          channel.port1.close();
          resolve();
        };
        channel.port2.postMessage(null);
      });

    it('for a browser that holds a session, the common chunks then the dashboard’s own', async () => {
      document.documentElement.classList.add('has-session');
      boot('/workspace/w1/insight/people');
      await turn();
      expect(added()).toEqual(['/assets/e.js']);
      paint!();
      // One link per task: the first at once, the others in the tasks after.
      expect(added()).toEqual(['/assets/e.js', '/assets/c1.js']);
      for (let i = 0; i < 4; i++) await turn();
      expect(added()).toEqual(['/assets/e.js', '/assets/c1.js', '/assets/c2.js', '/assets/p.js']);
    });

    it('not for a browser without a session (it is on its way to sign in), nor on another page', async () => {
      boot('/workspace/w1/insight/people');
      expect(paint).toBeNull();
      await turn();
      expect(added()).toEqual(['/assets/e.js']);
      vi.useRealTimers();
      document.head.querySelectorAll('link[rel="modulepreload"]').forEach((el) => el.remove());
      document.documentElement.classList.add('has-session');
      boot('/workspace/w1/insight/posts');
      expect(paint).toBeNull();
      await turn();
      expect(added()).toEqual(['/assets/e.js']);
    });
  });
});
