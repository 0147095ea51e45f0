// `npm run dev`: the API server (with its database and the development sign-in provider) and Vite's dev server with
// hot reload. The SPA on http://localhost:5173 calls the API on its configured base (http://localhost:8787/api/).
import { createServer } from 'vite';
import { startServer } from '@server/main';

const VITE_ORIGIN = 'http://localhost:5173';
// The card checkout returns to the SPA, which Vite serves here (unless APP_URL says otherwise).
process.env.APP_URL ||= VITE_ORIGIN;
// The built-in payment provider stays on the API server, not under the SPA's origin.
process.env.PAYMENT_SERVER_URL ||= `http://localhost:${process.env.PORT || '8787'}/payments/`;

await startServer({ serveSpa: false, corsOrigins: [VITE_ORIGIN] });
const vite = await createServer({ configFile: new URL('../vite.config.ts', import.meta.url).pathname });
await vite.listen();
vite.printUrls();
