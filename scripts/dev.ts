// `npm run dev`: the API server (with its database and the development sign-in provider) and Vite's dev server with
// hot reload. The SPA on http://localhost:5173 calls the API on its configured base (http://localhost:8787/api/).
import { createServer } from 'vite';
import { startServer } from '../server/main';

const VITE_ORIGIN = 'http://localhost:5173';

await startServer({ serveSpa: false, corsOrigins: [VITE_ORIGIN] });
const vite = await createServer({ configFile: new URL('../vite.config.ts', import.meta.url).pathname });
await vite.listen();
vite.printUrls();
