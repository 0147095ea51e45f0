// Vitest globalSetup of the `browser` project: builds the SPA once for end-to-end tests into dist-e2e/.
// The API base URL is baked in at build time, so the fake backend (test/support/fake-backend.ts) must listen on the
// same port; the port and the output folder reach the test files through vitest's provide/inject.
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildSpaFor } from './spa-build';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIST_DIR = path.join(ROOT, 'dist-e2e');

declare module 'vitest' {
  export interface ProvidedContext {
    e2ePort: number;
    e2eDistDir: string;
  }
}

function e2eEnv(port: number): Record<string, string> {
  const origin = `http://127.0.0.1:${port}`;
  return {
    VITE_APP_ENV: 'qa',
    VITE_API_BASE_URL: `${origin}/api/`,
    VITE_SOCIAL_API_BASE_URL: `${origin}/social/`,
    VITE_PAYMENT_SERVER_URL: `${origin}/payments/`,
    VITE_SENTRY_DSN: '',
    VITE_INTERNAL_WORKSPACE_ID: 'internal',
    VITE_E2E: 'true',
  };
}

export default async function setup(project: TestProject): Promise<void> {
  const port = Number(process.env.MURMUR_E2E_PORT ?? 4780);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`MURMUR_E2E_PORT must be a TCP port, got ${process.env.MURMUR_E2E_PORT}`);
  }
  const started = performance.now();
  if (await buildSpaFor(DIST_DIR, e2eEnv(port), [import.meta.filename])) {
    console.log(`[e2e] built dist-e2e in ${Math.round(performance.now() - started)} ms`);
  }
  project.provide('e2ePort', port);
  project.provide('e2eDistDir', DIST_DIR);
}
