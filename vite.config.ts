import { fileURLToPath, URL } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { precompress } from './scripts/vite-precompress.ts';
import { prerenderLogin } from './scripts/vite-prerender-login.ts';

/**
 * The path aliases of tsconfig.json, for Vite and Vitest (tsx reads tsconfig.json itself). A relative import stays
 * inside its area (eslint-rules.js); anything further is named by one of these.
 */
const dir = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
export const alias = {
  '@': dir('src'),
  '@contract': dir('contract'),
  '@server': dir('server'),
  '@test': dir('test'),
  '@scripts': dir('scripts'),
};

export default defineConfig({
  plugins: [
    // The router plugin must come before React's: it rewrites route files into code-split chunks.
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: 'src/routes',
      // Loaders go into lazy chunks too (by default they stay in the entry): what a page fetches with (its API
      // module, query options and response schemas) is not part of the sign-in screen's first load.
      codeSplittingOptions: {
        defaultBehavior: [
          ['loader'],
          ['component'],
          ['pendingComponent'],
          ['errorComponent'],
          ['notFoundComponent'],
        ],
      },
    }),
    react(),
    prerenderLogin(),
    precompress(),
  ],
  resolve: { alias },
  build: {
    manifest: true,
    sourcemap: true,
    target: 'es2023',
    // Rolldown warns when a plugin takes long; on a loaded two-core machine that is every build, and says nothing
    // about the build (bench:bundle measures what it produces).
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: { port: 5173 },
});
