/**
 * `npm run bench:bundle` — how much JavaScript does the browser load for the /login page?
 *
 * Runs `vite build` (skip with `--no-build`), then reads dist/.vite/manifest.json (vite.config.ts sets
 * `build.manifest: true`) and prints:
 *   1. the initial JS for /login: the entry chunk of index.html and its static `imports`, transitively (not
 *      `dynamicImports`), plus the /login route chunk(s) and their static imports. With TanStack Router's
 *      autoCodeSplitting the route component is a lazy chunk, but the router fetches it immediately when the
 *      page is /login, so it is part of what /login costs; such files are marked "/login route (lazy)";
 *   2. every other JS chunk (route chunks, lazy chunks, workers) with raw and gzip size, sorted by name;
 *   3. the CSS of the initial load and of the whole build;
 *   4. `initial JS for /login: NNN.N KB gzip (target <= 150 KB): PASS|OVER`;
 *   5. for each insight dashboard, the JS it loads beyond what /login loaded: the route's chunks and those of the
 *      layouts above it (every split part: component, loader, pending and error components, which the router fetches
 *      when the route matches; layouts are route.tsx, __root and pathless `_x` files) with their static imports, minus
 *      the chunks of (1); target <= 120 KB gzip each;
 *   6. the query editor's chunk (CodeMirrorQueryEditor-*.js, loaded lazily by discover and the saved-query form):
 *      target <= 150 KB gzip, and with its static imports beyond /login;
 *   7. the charts' chunk (chart-js-*.js: Chart.js, loaded when a page's first chart comes near the viewport, so not in
 *      (5)), and with its static imports beyond /login: what a dashboard with a chart in view loads on top of (5).
 * Sizes: raw bytes, gzip bytes (zlib level 9); 1 KB = 1024 bytes. Only figures are printed: the exit code is 0
 * whatever the size, and 1 only when the build fails or the manifest is missing.
 *
 * Options: --no-build (use the existing dist/), --outDir=<dir> (default dist), --route=<path> (default /login).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const TARGET_KB = 150;

interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
  assets?: string[];
}
type Manifest = Record<string, ManifestChunk>;

interface Sized {
  file: string;
  raw: number;
  gzip: number;
}

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

function fail(message: string): never {
  console.error(`bench-bundle: ${message}`);
  process.exit(1);
}

const root = process.cwd();
const outDir = path.resolve(root, option('outDir') ?? 'dist');
const route = option('route') ?? '/login';

// ---------------------------------------------------------------------------------------------- build

if (!process.argv.includes('--no-build')) {
  let viteBin: string;
  try {
    const require = createRequire(path.join(root, 'package.json'));
    const vitePkgPath = require.resolve('vite/package.json');
    const vitePkg = JSON.parse(readFileSync(vitePkgPath, 'utf8')) as {
      bin?: string | Record<string, string>;
    };
    const bin = typeof vitePkg.bin === 'string' ? vitePkg.bin : vitePkg.bin?.['vite'];
    if (!bin) throw new Error('vite has no bin');
    viteBin = path.join(path.dirname(vitePkgPath), bin);
  } catch (error) {
    fail(`cannot find vite: ${String(error)}`);
  }
  const outDirArgs = option('outDir') ? ['--outDir', outDir] : [];
  console.log(`$ vite build ${outDirArgs.join(' ')}`.trim());
  const result = spawnSync(process.execPath, [viteBin, 'build', ...outDirArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.error) fail(`vite build could not start: ${result.error.message}`);
  if (result.status !== 0) fail(`vite build failed (exit ${result.status ?? result.signal})`);
  console.log('');
}

// ------------------------------------------------------------------------------------------- manifest

const manifestPath = path.join(outDir, '.vite', 'manifest.json');
if (!existsSync(manifestPath)) {
  fail(`${path.relative(root, manifestPath)} not found: build first, with build.manifest: true`);
}
let manifest: Manifest;
try {
  manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
} catch (error) {
  fail(`cannot read ${path.relative(root, manifestPath)}: ${String(error)}`);
}

const sizeCache = new Map<string, Sized>();
function sized(file: string): Sized {
  let entry = sizeCache.get(file);
  if (!entry) {
    const fullPath = path.join(outDir, file);
    if (!existsSync(fullPath))
      fail(`${file} is listed in the manifest but missing from ${path.relative(root, outDir)}/`);
    const bytes = readFileSync(fullPath);
    entry = { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    sizeCache.set(file, entry);
  }
  return entry;
}

const isJs = (file: string) => /\.(?:m?js)$/.test(file);
const isCss = (file: string) => file.endsWith('.css');

/** Manifest keys of the chunks that `key` statically imports, transitively (including `key`). */
function staticClosure(keys: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) fail(`manifest refers to ${key}, which it does not list`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return [...seen];
}

// Entry: index.html's entry chunk (keyed "index.html" by Vite); fall back to every isEntry chunk.
const entryKeys = Object.keys(manifest).filter((key) => key === 'index.html' && manifest[key]?.isEntry);
if (entryKeys.length === 0) entryKeys.push(...Object.keys(manifest).filter((key) => manifest[key]?.isEntry));
if (entryKeys.length === 0) fail('the manifest has no entry chunk');

/**
 * Route chunks for the route: manifest keys under src/routes/ whose path segments (split on "/" and ".",
 * without extension or query, so login.tsx, login/index.tsx, _auth.login.tsx, (auth)/login.lazy.tsx and
 * login.tsx?tsr-split=component all count) are exactly the route's segments.
 */
const routeSegments = route.split('/').filter(Boolean);
/** A module under src/routes: its path segments, and whether it is a layout (route.tsx, __root, a pathless `_x`). */
function routeModule(key: string): { segments: string[]; layout: boolean } | null {
  const source = (manifest[key]?.src ?? key).split('?')[0] ?? '';
  const match = /(?:^|\/)src\/routes\/(.+)\.[cm]?[jt]sx?$/.exec(source);
  if (!match?.[1]) return null;
  const parts = match[1].split(/[/.]/);
  if (parts.some((part) => part.startsWith('-'))) return null; // "-components/…": ignored by the router
  const last = parts.at(-1) ?? '';
  const segments = parts
    .filter((part) => !/^(?:index|route|lazy)$/.test(part) && !/^\(.*\)$/.test(part) && !part.startsWith('_'))
    .map((part) => part.replace(/_$/, ''));
  return { segments, layout: last === 'route' || last.startsWith('_') };
}
function isRouteModule(key: string): boolean {
  const segments = routeModule(key)?.segments;
  return (
    segments?.length === routeSegments.length && routeSegments.every((segment, i) => segments[i] === segment)
  );
}
const routeKeys = Object.keys(manifest).filter(isRouteModule);

const entryClosure = staticClosure(entryKeys);
const initialKeys = staticClosure([...entryKeys, ...routeKeys]);
const entrySet = new Set(entryKeys);
const entryClosureSet = new Set(entryClosure);
const routeKeySet = new Set(routeKeys);

// Cross-check with dist/index.html: every script and modulepreload there is loaded up front, manifest or not.
const extraInitialFiles: string[] = [];
const indexHtmlPath = path.join(outDir, 'index.html');
if (existsSync(indexHtmlPath)) {
  const html = readFileSync(indexHtmlPath, 'utf8');
  const manifestFiles = new Set(initialKeys.map((key) => manifest[key]?.file));
  for (const match of html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+\.m?js)"[^>]*>/g)) {
    const url = match[1] ?? '';
    if (/^(?:[a-z]+:)?\/\//i.test(url)) continue; // external
    const file = url.replace(/^\.?\//, '').replace(/^.*?(?=assets\/)/, '');
    if (!manifestFiles.has(file) && existsSync(path.join(outDir, file))) extraInitialFiles.push(file);
  }
}

// ---------------------------------------------------------------------------------------------- report

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const sum = (items: Sized[], field: 'raw' | 'gzip') => items.reduce((total, item) => total + item[field], 0);

function printTable(title: string, rows: { sized: Sized; note: string }[]) {
  const fileWidth = Math.max(4, ...rows.map((row) => row.sized.file.length));
  const line = (file: string, raw: string, gzip: string, note: string) =>
    `  ${file.padEnd(fileWidth)}  ${raw.padStart(10)}  ${gzip.padStart(10)}  ${note}`.trimEnd();
  console.log(title);
  console.log(line('file', 'raw B', 'gzip B', ''));
  for (const row of rows)
    console.log(line(row.sized.file, String(row.sized.raw), String(row.sized.gzip), row.note));
  const all = rows.map((row) => row.sized);
  console.log(
    line(
      `total (${rows.length} file${rows.length === 1 ? '' : 's'})`,
      String(sum(all, 'raw')),
      String(sum(all, 'gzip')),
      `${kb(sum(all, 'raw'))} KB raw, ${kb(sum(all, 'gzip'))} KB gzip`,
    ),
  );
  console.log('');
}

type Kind = 'entry' | 'entry import' | 'route' | 'route import' | 'index.html';
function kindOf(key: string): Kind {
  if (entrySet.has(key)) return 'entry';
  if (routeKeySet.has(key)) return 'route';
  return entryClosureSet.has(key) ? 'entry import' : 'route import';
}
function describe(key: string, kind: Kind): string {
  const chunk = manifest[key];
  const source = chunk?.src ?? (key.startsWith('_') ? '' : key);
  const label = {
    entry: 'entry',
    'entry import': 'static import',
    route: `${route} route${entryClosureSet.has(key) ? '' : ' (lazy)'}`,
    'route import': `static import of ${route} route`,
    'index.html': 'referenced by index.html',
  }[kind];
  return source ? `${label}: ${source}` : label;
}

const initialJs = [
  ...initialKeys
    .filter((key) => isJs(manifest[key]?.file ?? ''))
    .map((key) => {
      const kind = kindOf(key);
      return { sized: sized(manifest[key]?.file ?? ''), kind, note: describe(key, kind) };
    }),
  ...extraInitialFiles.map((file) => ({
    sized: sized(file),
    kind: 'index.html' as Kind,
    note: describe('', 'index.html'),
  })),
];
const initialFiles = new Set(initialJs.map((row) => row.sized.file));

printTable(`Initial JS for ${route} (entry + static imports + ${route} route chunks):`, initialJs);
if (routeKeys.length === 0) {
  console.log(
    `  note: no separate chunk for a ${route} route module under src/routes (bundled into the entry?)\n`,
  );
}
const entryOnly = initialJs
  .filter((row) => row.kind !== 'route' && row.kind !== 'route import')
  .map((row) => row.sized);
if (entryOnly.length !== initialJs.length) {
  console.log(
    `  of which the entry and its static imports: ${kb(sum(entryOnly, 'raw'))} KB raw, ` +
      `${kb(sum(entryOnly, 'gzip'))} KB gzip\n`,
  );
}

// Every other JS file: all manifest chunks, plus JS files in outDir the manifest does not list (e.g. workers).
const sourceOf = new Map<string, string>();
for (const [key, chunk] of Object.entries(manifest)) {
  if (!sourceOf.has(chunk.file))
    sourceOf.set(chunk.file, chunk.src ?? (key.startsWith('_') ? '(shared chunk)' : key));
}
function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '.vite' ? [] : listFiles(full);
    return [path.relative(outDir, full).split(path.sep).join('/')];
  });
}
const allFiles = listFiles(outDir);
const otherJs = [...new Set([...sourceOf.keys(), ...allFiles])]
  .filter((file) => isJs(file) && !initialFiles.has(file))
  .sort((a, b) => path.basename(a).localeCompare(path.basename(b)) || a.localeCompare(b))
  .map((file) => ({ sized: sized(file), note: sourceOf.get(file) ?? '(not in manifest)' }));
printTable('Other JS chunks (lazy routes and chunks, loaded on demand):', otherJs);

// CSS: what the initial load pulls in (css of the initial chunks) and the whole build.
const initialCss = [...new Set(initialKeys.flatMap((key) => manifest[key]?.css ?? []))].map(sized);
const allCss = allFiles.filter(isCss).map(sized);
const cssFigures = (files: Sized[]) =>
  `${sum(files, 'raw')} B raw / ${sum(files, 'gzip')} B gzip (${kb(sum(files, 'gzip'))} KB gzip, ` +
  `${files.length} file${files.length === 1 ? '' : 's'})`;
console.log(`CSS: initial for ${route} ${cssFigures(initialCss)}; all ${cssFigures(allCss)}`);
const allJs = [...initialJs, ...otherJs].map((row) => row.sized);
console.log(
  `JS: all chunks ${kb(sum(allJs, 'raw'))} KB raw / ${kb(sum(allJs, 'gzip'))} KB gzip (${allJs.length} files)`,
);

const initialGzip = sum(
  initialJs.map((row) => row.sized),
  'gzip',
);
const initialGzipKb = initialGzip / 1024;
console.log(
  `initial JS for ${route}: ${initialGzipKb.toFixed(1)} KB gzip (target <= ${TARGET_KB} KB): ` +
    (initialGzipKb <= TARGET_KB ? 'PASS' : 'OVER'),
);

// ------------------------------------------------------------------------- dashboards and query editor

const ROUTE_TARGET_KB = 120;
const EDITOR_TARGET_KB = 150;
const DASHBOARD_ROUTES = [
  'overview',
  'posts',
  'people',
  'performance',
  'conversation',
  'filtered-posts',
  'filtered-profiles',
].map((name) => `/workspace/$workspaceId/insight/${name}`);

/**
 * The route modules the router loads for a path: its own (every split part: component, loader, pending and error
 * components, which the router fetches when the route matches) and those of the layouts above it.
 */
function routeChainKeys(path: string): string[] {
  const wanted = path.split('/').filter(Boolean);
  return Object.keys(manifest).filter((key) => {
    const module = routeModule(key);
    if (!module || module.segments.length > wanted.length) return false;
    if (!module.segments.every((segment, i) => wanted[i] === segment)) return false;
    return module.segments.length === wanted.length || module.layout;
  });
}

const jsOf = (keys: string[]) =>
  [...new Set(keys.map((key) => manifest[key]?.file ?? ''))].filter(isJs).map(sized);
const initialKeySet = new Set(initialKeys);

console.log(
  `\nJS each dashboard loads beyond what ${route} loaded (its route chunks, its layouts', their imports):`,
);
const routeWidth = Math.max(...DASHBOARD_ROUTES.map((path) => path.length));
for (const dashboard of DASHBOARD_ROUTES) {
  const chain = routeChainKeys(dashboard);
  const beyond = jsOf(staticClosure(chain).filter((key) => !initialKeySet.has(key)));
  const gzipKb = sum(beyond, 'gzip') / 1024;
  console.log(
    `  ${dashboard.padEnd(routeWidth)} ${kb(sum(beyond, 'raw')).padStart(7)} KB raw ${gzipKb.toFixed(1).padStart(6)} KB gzip ` +
      `(${beyond.length} files; target <= ${ROUTE_TARGET_KB} KB): ${gzipKb <= ROUTE_TARGET_KB ? 'PASS' : 'OVER'}`,
  );
}

/** A chunk loaded on demand, found by its file name, and what it loads with its imports beyond the initial load. */
function lazyChunk(file: RegExp): { chunk: Sized; withImports: Sized[] } | null {
  const key = Object.keys(manifest).find((k) => file.test(manifest[k]?.file ?? ''));
  if (!key) return null;
  const withImports = jsOf(staticClosure([key]).filter((k) => !initialKeySet.has(k)));
  return { chunk: sized(manifest[key]!.file), withImports };
}

const editorChunk = lazyChunk(/(?:^|\/)CodeMirrorQueryEditor-[^/]*\.m?js$/);
if (editorChunk) {
  const { chunk: editor, withImports } = editorChunk;
  console.log(
    `\nquery editor chunk ${editor.file}: ${kb(editor.raw)} KB raw, ${kb(editor.gzip)} KB gzip ` +
      `(target <= ${EDITOR_TARGET_KB} KB): ${editor.gzip / 1024 <= EDITOR_TARGET_KB ? 'PASS' : 'OVER'}; with its ` +
      `imports beyond ${route}: ${kb(sum(withImports, 'gzip'))} KB gzip (${withImports.length} files)`,
  );
} else {
  console.log('\nquery editor chunk: no CodeMirrorQueryEditor-*.js in the build');
}

const chartsChunk = lazyChunk(/(?:^|\/)chart-js-[^/]*\.m?js$/);
if (chartsChunk) {
  const { chunk: charts, withImports } = chartsChunk;
  console.log(
    `charts chunk ${charts.file} (loaded when a page's first chart comes near the viewport): ${kb(charts.raw)} KB ` +
      `raw, ${kb(charts.gzip)} KB gzip; with its imports beyond ${route}: ${kb(sum(withImports, 'gzip'))} KB gzip ` +
      `(${withImports.length} files)`,
  );
} else {
  console.log('charts chunk: no chart-js-*.js in the build');
}
