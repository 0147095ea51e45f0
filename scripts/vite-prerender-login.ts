// A Vite plugin that writes login.html: index.html with the sign-in screen already drawn in it, laid over the app's
// root, and the app's code started only once that has painted (a small boot script). The server sends it for /login,
// so the sign-in screen paints as soon as the HTML and the stylesheet have arrived instead of after the app's code has
// been fetched and run; the app then draws the same screen underneath and takes the prerendered one away in the same
// frame (src/lib/prerender.ts). Every other address still gets the plain index.html. The markup comes from
// scripts/prerender-login-markup.tsx, run by Vite's module runner.
import { fileURLToPath } from 'node:url';
import { runnerImport, type Plugin, type ResolvedConfig, type Rollup } from 'vite';
// With its extension: this file is loaded with the Vite config.
// Relative, not aliased: Vite bundles its config and the plugins it imports before any alias exists.
// eslint-disable-next-line murmur/relative-within-area
import { PRERENDER_ID, QUEUED_SIGN_IN, SHELL_DASHBOARDS, SHELL_PATH } from '../src/lib/prerender.ts';
// eslint-disable-next-line murmur/relative-within-area
import { AUTH_TOKENS_KEY } from '../src/lib/storage-keys.ts';

const ROOT = '<div id="root"></div>';
const BOOT_PLACEHOLDER = '__murmur_login_boot__';

const MODULE_SCRIPT = /<script type="module" crossorigin src="([^"]+)"><\/script>\s*/g;
const MODULE_PRELOAD = /<link rel="modulepreload" crossorigin href="([^"]+)">\s*/g;

// A press of the prerendered Google button before the app has arrived: kept for the login page to carry out.
const QUEUE_SIGN_IN = `  document.addEventListener(
    'click',
    function (event) {
      var button = event.target instanceof Element && event.target.closest('#${PRERENDER_ID} button[data-vendor]');
      if (button) window.${QUEUED_SIGN_IN} = button.getAttribute('data-vendor');
    },
    true,
  );
`;

/**
 * The script that starts the app on login.html once the prerendered screen has painted: the next frame, or at the
 * latest after 200 ms (a page opened in a background tab gets no frames). It fetches and runs what index.html would
 * have from the start (the entry and its preloads), so the app's code never holds up the sign-in screen's first paint.
 *
 * On a dashboard's shell (`dashboardPreloads`: each shell dashboard's own chunks, DASHBOARD_ROUTES), the entry's
 * preloads are added one per task, and, in a browser that holds a session, once the first contentful paint is on
 * screen, the chunks the router will load for the dashboard of the address, one per task too: their download starts
 * while the entry's goes on, instead of after the entry has run and the router has resolved the address, and the
 * router's loading (Vite's preload helper) finds them already asked for instead of adding some thirty links in one
 * long task (each link added costs the main thread a fraction of a millisecond, several under Lighthouse's tracing).
 */
export function bootScript(
  entry: string,
  preloads: readonly string[],
  {
    queueSignIn = true,
    dashboardPreloads,
  }: { queueSignIn?: boolean; dashboardPreloads?: DashboardPreloads } = {},
): string {
  return `// Starts the app once the prerendered page has painted (scripts/vite-prerender-login.ts).
(function () {
  var started = false;
  function preload(href) {
    var link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = href;
    document.head.append(link);
  }
  function entry() {
    var script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = ${JSON.stringify(entry)};
    document.head.append(script);
  }
${dashboardPreloads ? SHELL_START(preloads, dashboardPreloads) : LOGIN_START(preloads)}
${queueSignIn ? QUEUE_SIGN_IN : ''}  requestAnimationFrame(function () { setTimeout(start, 0); });
  setTimeout(start, 200);
})();
`;
}

/** The chunks every shell dashboard loads beyond the entry (`common`), and each one's own (`own`). */
export interface DashboardPreloads {
  common: readonly string[];
  own: Readonly<Record<string, readonly string[]>>;
}

/** login.html's start: the entry's preloads and the entry. */
const LOGIN_START = (preloads: readonly string[]) => `  function start() {
    if (started) return;
    started = true;
    ${JSON.stringify(preloads)}.forEach(preload);
    entry();
  }
`;

/**
 * A shell's start: the entry, then its preloads, one per task; and, once the first contentful paint has been presented
 * (so that these downloads never compete with what it needs), the chunks of the address's dashboard, one per task too.
 */
const SHELL_START = (preloads: readonly string[], { common, own }: DashboardPreloads) => `  var queue = [];
  var pumping = false;
  // A task per link without setTimeout's 4 ms clamp: the links are all in before the router asks for their chunks.
  var channel = new MessageChannel();
  channel.port1.onmessage = pump;
  function pump() {
    var href = queue.shift();
    pumping = href !== undefined;
    if (!pumping) return;
    preload(href);
    channel.port2.postMessage(null);
  }
  function enqueue(hrefs) {
    queue.push.apply(queue, hrefs);
    if (!pumping) pump();
  }
  function start() {
    if (started) return;
    started = true;
    entry();
    enqueue(${JSON.stringify(preloads)});
    var match = ${SHELL_PATH.toString()}.exec(location.pathname);
    var mine = match && ${JSON.stringify(own)}[match[1] || 'overview'];
    if (!mine || !document.documentElement.classList.contains(${JSON.stringify(SESSION_CLASS)})) return;
    if (typeof PerformanceObserver !== 'function') return;
    new PerformanceObserver(function (list, observer) {
      if (!list.getEntriesByName('first-contentful-paint').length) return;
      observer.disconnect();
      enqueue(${JSON.stringify(common)}.concat(mine));
    }).observe({ type: 'paint', buffered: true });
  }
`;

/**
 * login.html from index.html: the sign-in screen laid over the app's (still empty) root, and the app's entry and
 * preloads replaced by `bootSrc`, which loads them after the screen has painted.
 */
export function withPrerenderedLogin(
  indexHtml: string,
  markup: string,
  bootSrc: string,
): { html: string; entry: string; preloads: string[] } {
  if (!indexHtml.includes(ROOT)) {
    throw new Error(`index.html has no ${ROOT} to prerender the sign-in screen beside`);
  }
  const entries = [...indexHtml.matchAll(MODULE_SCRIPT)].map((match) => match[1]!);
  if (entries.length !== 1)
    throw new Error(`index.html has ${entries.length} module scripts; expected the entry alone`);
  const preloads = [...indexHtml.matchAll(MODULE_PRELOAD)].map((match) => match[1]!);
  const html = indexHtml
    .replace(MODULE_SCRIPT, `<script defer src="${bootSrc}"></script>\n    `)
    .replace(MODULE_PRELOAD, '')
    .replace(ROOT, `${ROOT}<div id="${PRERENDER_ID}">${markup}</div>`);
  return { html, entry: entries[0]!, preloads };
}

/** The class the shell's gate puts on <html> when the browser holds a session: only then is the shell shown (styles.css). */
const SESSION_CLASS = 'has-session';

/** The start of a shell page's boot script: run before the body is drawn, it shows the shell only to a browser with a session. */
export function shellGateScript(): string {
  return `// Shows the prerendered dashboard shell only when this browser holds a session (src/lib/prerender.ts).
try {
  if (localStorage.getItem(${JSON.stringify(AUTH_TOKENS_KEY)})) document.documentElement.classList.add(${JSON.stringify(SESSION_CLASS)});
} catch (error) {}
`;
}

/**
 * A dashboard's shell page from index.html: the shell laid over the app's root (shown only when the boot script finds
 * a session), the stylesheets the shell is drawn with beside index.html's, and the app's entry and preloads replaced by
 * `bootSrc`, a script run before the body (it shows the shell or not) that loads them after the shell has painted.
 */
export function withShell(
  indexHtml: string,
  markup: string,
  bootSrc: string,
  stylesheets: readonly string[],
): { html: string; entry: string; preloads: string[] } {
  const { html, entry, preloads } = withPrerenderedLogin(indexHtml, markup, BOOT_PLACEHOLDER);
  const head = [
    ...stylesheets.map((href) => `<link rel="stylesheet" crossorigin href="${href}">`),
    `<script src="${bootSrc}"></script>`,
  ].join('\n    ');
  if (!html.includes('</head>')) throw new Error('index.html has no </head> for the shell’s boot script');
  return {
    html: html
      .replace(`<script defer src="${BOOT_PLACEHOLDER}"></script>\n    `, '')
      .replace('</head>', `  ${head}\n  </head>`)
      .replace(`<div id="${PRERENDER_ID}">`, `<div id="${PRERENDER_ID}" data-shell="" inert="">`),
    entry,
    preloads,
  };
}

/** The stylesheets the build made for the chunks holding `modules` (paths from the root, e.g. src/x.tsx). */
function stylesheetsOf(bundle: Rollup.OutputBundle, modules: readonly string[]): string[] {
  const css = new Set<string>();
  for (const chunk of Object.values(bundle)) {
    if (chunk.type !== 'chunk') continue;
    if (!chunk.moduleIds.some((id) => modules.some((module) => id.endsWith(module)))) continue;
    for (const file of chunk.viteMetadata?.importedCss ?? []) css.add(`/${file}`);
  }
  return [...css];
}

/**
 * The route modules (TanStack Router's split chunks: `?tsr-split=component` and `loader`) that a visit to a dashboard
 * loads, from the signed-in layout down to the dashboard's page, and the pending component of the route with a loader
 * (the router loads it with the route, should the loader take long). Error components are loaded only on an error. A
 * route moved or renamed fails the build (dashboardChunks) rather than silently preloading nothing.
 */
const DASHBOARD_ROUTES = (dashboard: string) => [
  ['src/routes/_authed/route.tsx', 'component'],
  ['src/routes/_authed/workspace/$workspaceId/route.tsx', 'component'],
  ['src/routes/_authed/workspace/$workspaceId/insight/route.tsx', 'component'],
  ['src/routes/_authed/workspace/$workspaceId/insight/route.tsx', 'loader'],
  ['src/routes/_authed/workspace/$workspaceId/insight/route.tsx', 'pendingComponent'],
  [`src/routes/_authed/workspace/$workspaceId/insight/${dashboard}.tsx`, 'component'],
];
/** The workspace guard, which the entry loads on demand for a visit that begins signed in (src/main.tsx). */
const WORKSPACE_GUARD = 'src/routes/-workspace-guard.ts';

/** Each shell dashboard's chunks (dashboardChunks), those they all load said once. */
function shellPreloads(bundle: Rollup.OutputBundle): DashboardPreloads {
  const lists = SHELL_DASHBOARDS.map((dashboard) => [dashboard, dashboardChunks(bundle, dashboard)] as const);
  const common = lists[0]![1].filter((file) => lists.every(([, list]) => list.includes(file)));
  return {
    common,
    own: Object.fromEntries(
      lists.map(([dashboard, list]) => [dashboard, list.filter((f) => !common.includes(f))]),
    ),
  };
}

/**
 * The JavaScript files a visit to `dashboard` loads beyond the entry's own: the chunks of its routes
 * (DASHBOARD_ROUTES) and of the workspace guard, with everything they import, less what the entry imports.
 */
function dashboardChunks(bundle: Rollup.OutputBundle, dashboard: string): string[] {
  const chunks = Object.values(bundle).filter((file): file is Rollup.OutputChunk => file.type === 'chunk');
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const closure = (roots: readonly Rollup.OutputChunk[]) => {
    const seen = new Set<string>();
    const visit = (chunk: Rollup.OutputChunk) => {
      if (seen.has(chunk.fileName)) return;
      seen.add(chunk.fileName);
      for (const name of chunk.imports) {
        const imported = byName.get(name);
        if (imported) visit(imported);
      }
    };
    roots.forEach(visit);
    return seen;
  };
  const facade = (module: string) => {
    const chunk = chunks.find((c) => c.facadeModuleId?.endsWith(module));
    if (!chunk) throw new Error(`No chunk of ${module} for the ${dashboard} shell’s preloads`);
    return chunk;
  };
  const entry = closure(chunks.filter((chunk) => chunk.isEntry));
  // The guard first: the entry asks for it as soon as it runs.
  const roots = [
    facade(WORKSPACE_GUARD),
    ...DASHBOARD_ROUTES(dashboard).map(([file, split]) => facade(`${file}?tsr-split=${split}`)),
  ];
  return [...closure(roots)].filter((name) => !entry.has(name)).map((name) => `/${name}`);
}

/** The modules whose stylesheets draw a dashboard's shell besides index.html's: the header's and the dashboards'. */
const SHELL_STYLE_MODULES = ['src/components/AppHeader.tsx', 'src/features/insight/InsightLayout.tsx'];

export function prerenderLogin(): Plugin {
  let env: Record<string, unknown> = {};
  /** The build's aliases, for the markup modules run below (they import the SPA's code through them). */
  let alias: ResolvedConfig['resolve']['alias'] = [];
  // Each shell dashboard's page, shell-<dashboard>.html, which the server sends for that dashboard's address.
  async function emitShells(this: Rollup.PluginContext, indexHtml: string, bundle: Rollup.OutputBundle) {
    const { module } = await runnerImport<typeof import('./prerender-shell-markup')>(
      fileURLToPath(new URL('./prerender-shell-markup.tsx', import.meta.url)),
      { configFile: false, logLevel: 'warn', resolve: { alias } },
    );
    const stylesheets = stylesheetsOf(bundle, SHELL_STYLE_MODULES);
    const draft = (dashboard: (typeof SHELL_DASHBOARDS)[number], bootSrc: string) =>
      withShell(indexHtml, module.shellMarkup(dashboard), bootSrc, stylesheets);
    // One boot script for every shell (they share the entry): the gate, then the app once the shell has painted.
    const { entry, preloads } = draft('overview', BOOT_PLACEHOLDER);
    const boot = this.emitFile({
      type: 'asset',
      name: 'shell-boot.js',
      source:
        shellGateScript() +
        bootScript(entry, preloads, {
          queueSignIn: false,
          dashboardPreloads: shellPreloads(bundle),
        }),
    });
    for (const dashboard of SHELL_DASHBOARDS) {
      this.emitFile({
        type: 'asset',
        fileName: `shell-${dashboard}.html`,
        source: draft(dashboard, `/${this.getFileName(boot)}`).html,
      });
    }
  }
  return {
    name: 'murmur-prerender-login',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      env = config.env;
      alias = config.resolve.alias;
    },
    async generateBundle(_options, bundle) {
      const index = bundle['index.html'];
      if (!index || index.type !== 'asset') return;
      const { module } = await runnerImport<typeof import('./prerender-login-markup')>(
        fileURLToPath(new URL('./prerender-login-markup.tsx', import.meta.url)),
        { configFile: false, logLevel: 'warn', resolve: { alias } },
      );
      const markup = module.loginMarkup(env);
      if (!markup) return;
      await emitShells.call(this, String(index.source), bundle);
      // The boot script's name carries a hash of its content, which names the entry: a placeholder first.
      const draft = withPrerenderedLogin(String(index.source), markup, BOOT_PLACEHOLDER);
      const boot = this.emitFile({
        type: 'asset',
        name: 'login-boot.js',
        source: bootScript(draft.entry, draft.preloads),
      });
      this.emitFile({
        type: 'asset',
        fileName: 'login.html',
        source: draft.html.replace(BOOT_PLACEHOLDER, `/${this.getFileName(boot)}`),
      });
    },
  };
}
