// `npm run dev`: the API server (with its database and the development sign-in provider) and Vite's dev server with
// hot reload. The SPA on http://localhost:5173 calls the API on its port (http://localhost:PORT/api/, 8787 by default).
import { resolve } from 'node:path';
import { createServer } from 'vite';
import { loadServerConfig } from '@server/config';
import { startServer } from '@server/main';
import { resolveBuildSettings } from '@server/spa-build';

const VITE_ORIGIN = 'http://localhost:5173';
// The card checkout returns to the SPA, which Vite serves here (unless APP_URL says otherwise).
process.env.APP_URL ||= VITE_ORIGIN;
// The built-in payment provider stays on the API server, not under the SPA's origin.
process.env.PAYMENT_SERVER_URL ||= `http://localhost:${process.env.PORT || '8787'}/payments/`;

await startServer({ serveSpa: false, corsOrigins: [VITE_ORIGIN] });
// The SPA's settings as a build for this API server would bake them in (server/spa-build.ts): the API on its own port.
const config = loadServerConfig();
const root = resolve(import.meta.dirname, '..');
const settings = await resolveBuildSettings(
  root,
  { ...config, APP_URL: `http://localhost:${config.PORT}` },
  { mode: 'development' },
);
Object.assign(process.env, settings);
const vite = await createServer({ configFile: new URL('../vite.config.ts', import.meta.url).pathname });
await vite.listen();
vite.printUrls();
