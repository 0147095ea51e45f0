// login.html's sign-in screen (scripts/vite-prerender-login.ts, scripts/prerender-login-markup.tsx) is the app's own
// first drawing of /login, byte for byte, for each configuration that changes it: otherwise the swap from the
// prerendered screen to the app's would flash or shift. The app takes the prerendered screen away when it draws.
import { createElement } from 'react';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App, createApp, type MurmurApp } from '@/app';
import type { AppConfig } from '@/config';
import { PRERENDER_ID } from '@/lib/prerender';
import { loginMarkup } from '@scripts/prerender-login-markup';
import { bootScript, withPrerenderedLogin } from '@scripts/vite-prerender-login';
import { testConfig } from '@test/support/router-harness';

let running: MurmurApp[] = [];
afterEach(() => {
  cleanup();
  for (const app of running) app.session.actor.stop();
  running = [];
  document.getElementById(PRERENDER_ID)?.remove();
  vi.restoreAllMocks();
});

const base = testConfig('http://127.0.0.1:1/api/');
const configurations: Array<[string, AppConfig]> = [
  ['no sign-in configured', base],
  ['both vendors configured', { ...base, VITE_GOOGLE_CLIENT_ID: 'g', VITE_MICROSOFT_CLIENT_ID: 'm' }],
  ['Google only', { ...base, VITE_GOOGLE_CLIENT_ID: 'g' }],
  [
    'the development provider',
    { ...base, VITE_APP_ENV: 'local', VITE_DEV_OIDC_ISSUER: 'http://127.0.0.1:1/dev-oidc' },
  ],
];

/** The app at /login, signed out, with the prerendered screen in the page as login.html puts it. */
async function drawLogin(config: AppConfig) {
  const prerendered = document.createElement('div');
  prerendered.id = PRERENDER_ID;
  prerendered.innerHTML = loginMarkup(config as unknown as Record<string, unknown>);
  document.body.append(prerendered);
  vi.spyOn(window, 'scrollTo').mockImplementation(() => {});
  const app = createApp(config, {
    history: createMemoryHistory({ initialEntries: ['/login'] }),
    analytics: () => {},
  });
  running.push(app);
  const { container } = render(createElement(App, { app }));
  await screen.findByRole('heading', { name: 'Sign in to Murmur' });
  return { container, prerendered };
}

describe('the prerendered sign-in screen', () => {
  it.each(configurations)('is what the app first draws at /login (%s)', async (_name, config) => {
    const expected = loginMarkup(config as unknown as Record<string, unknown>);
    expect(expected).toContain('Sign in to Murmur');
    const { container } = await drawLogin(config);
    expect(container.querySelector('.login-screen')?.outerHTML).toBe(expected);
  });

  it('is taken away when the app has drawn the login screen, leaving one screen and unique ids', async () => {
    const { prerendered } = await drawLogin(base);
    expect(prerendered.isConnected).toBe(false);
    expect(document.querySelectorAll('.login-screen')).toHaveLength(1);
    expect(document.querySelectorAll('#login-title')).toHaveLength(1);
  });

  it('is nothing for a build whose configuration is bad (that build shows the configuration error)', () => {
    expect(loginMarkup({ ...base, VITE_API_BASE_URL: 'not a url' })).toBe('');
  });

  it('lies beside the app root of index.html, the app started by the boot script; refuses an odd index.html', () => {
    const html =
      '<head>\n    <script type="module" crossorigin src="/assets/a.js"></script>\n' +
      '    <link rel="modulepreload" crossorigin href="/assets/b.js">\n' +
      '    <link rel="modulepreload" crossorigin href="/assets/c.js">\n' +
      '    <link rel="stylesheet" crossorigin href="/assets/d.css">\n  </head>\n  <body>\n    <div id="root"></div>\n  </body>';
    const login = withPrerenderedLogin(html, '<main>x</main>', '/assets/boot.js');
    expect(login.entry).toBe('/assets/a.js');
    expect(login.preloads).toEqual(['/assets/b.js', '/assets/c.js']);
    expect(login.html).toBe(
      '<head>\n    <script defer src="/assets/boot.js"></script>\n' +
        '    <link rel="stylesheet" crossorigin href="/assets/d.css">\n  </head>\n  <body>\n' +
        `    <div id="root"></div><div id="${PRERENDER_ID}"><main>x</main></div>\n  </body>`,
    );
    expect(() => withPrerenderedLogin('<body></body>', '<main>x</main>', '/b.js')).toThrow(
      /no <div id="root">/,
    );
    expect(() => withPrerenderedLogin('<body><div id="root"></div></body>', 'x', '/b.js')).toThrow(
      /0 module scripts/,
    );
  });

  it('starts the app once: the entry and its preloads, after the first frame or 200 ms', () => {
    vi.useFakeTimers();
    try {
      const frames: FrameRequestCallback[] = [];
      vi.spyOn(window, 'requestAnimationFrame').mockImplementation((callback) => frames.push(callback));
      const before = document.head.children.length;
      new Function(bootScript('/assets/a.js', ['/assets/b.js']))();
      expect(document.head.children.length).toBe(before);
      frames.forEach((frame) => frame(0));
      vi.advanceTimersByTime(0);
      const added = [...document.head.children].slice(before);
      expect(added.map((el) => el.outerHTML)).toEqual([
        '<link rel="modulepreload" crossorigin="" href="/assets/b.js">',
        '<script type="module" crossorigin="" src="/assets/a.js"></script>',
      ]);
      vi.advanceTimersByTime(500);
      expect(document.head.children.length).toBe(before + 2);
      added.forEach((el) => el.remove());
    } finally {
      vi.useRealTimers();
    }
  });
});
