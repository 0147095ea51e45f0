// Proves each import rule of eslint.config.js fires: probe sources linted at virtual paths inside the project (the
// imports they name are real files, resolved as TypeScript does), and two real files importing each other for cycles.
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RESTRICTED_PATHS = 'import-x/no-restricted-paths';
const RESTRICTED_IMPORTS = 'no-restricted-imports';
const CYCLE = 'import-x/no-cycle';

let eslint: ESLint;

// Loading the config and resolving the first imports takes a few seconds on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The rule ids reported for `code` as if it were the file at `filePath` (relative to the project root). */
async function ruleIds(filePath: string, code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

describe('forbidden imports fail', () => {
  it.each([
    // Machines are pure statecharts.
    ['src/machines/probe.ts', 'react', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '@xstate/react', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '@tanstack/react-router', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', 'wretch', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '../api/api', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '../routes/-guards', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '../features/auth/sign-in', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '../components/PageFrame', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '../lib/toast', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '../config', RESTRICTED_PATHS],
    // Features do not import each other, by relative path or by the @/ alias.
    ['src/features/auth/probe.ts', '../settings/MembersPage', RESTRICTED_PATHS],
    ['src/features/auth/probe.ts', '@/features/settings/MembersPage', RESTRICTED_PATHS],
    ['src/features/settings/nested/probe.ts', '../../workspace/WorkspaceLayout', RESTRICTED_PATHS],
    // The shared layers import neither routes nor features.
    ['src/api/probe.ts', '../routes/-guards', RESTRICTED_PATHS],
    ['src/lib/probe.ts', '../features/auth/sign-in', RESTRICTED_PATHS],
    ['src/components/probe.ts', '@/features/settings/GeneralSettingsPage', RESTRICTED_PATHS],
    // The server shares only the contract with the SPA, and the SPA imports no server code.
    ['server/probe.ts', '../src/features/auth/sign-in', RESTRICTED_PATHS],
    ['server/auth/probe.ts', '../../src/lib/jwt', RESTRICTED_PATHS],
    ['src/lib/probe.ts', '../../server/app', RESTRICTED_PATHS],
    ['src/contract/probe.ts', '../../server/config', RESTRICTED_PATHS],
    // The contract imports only zod, csv-stringify and itself.
    ['src/contract/probe.ts', '../api/api', RESTRICTED_PATHS],
    ['src/contract/probe.ts', '@/lib/jwt', RESTRICTED_PATHS],
    ['src/contract/probe.ts', 'react', RESTRICTED_IMPORTS],
  ])('%s importing %s: %s', async (filePath, specifier, ruleId) => {
    expect(await ruleIds(filePath, `import '${specifier}';\n`)).toEqual([ruleId]);
  });
});

describe('allowed imports pass', () => {
  it.each([
    ['src/machines/probe.ts', 'xstate'],
    ['src/machines/probe.ts', '../contract/workspaces'],
    ['src/machines/probe.ts', '../lib/jwt'],
    ['src/features/auth/probe.ts', './sign-in-error'],
    ['src/features/auth/probe.ts', '../../components/PageFrame'],
    ['src/routes/probe.ts', '../features/settings/MembersPage'],
    ['server/probe.ts', '../src/contract/workspaces'],
    ['server/auth/probe.ts', '@/contract/auth'],
    ['src/contract/probe.ts', 'zod/mini'],
    ['src/contract/probe.ts', 'csv-stringify/browser/esm/sync'],
    ['src/contract/probe.ts', './workspaces'],
    ['test/probe.ts', '../server/app'],
  ])('%s importing %s', async (filePath, specifier) => {
    expect(await ruleIds(filePath, `import '${specifier}';\n`)).toEqual([]);
  });
});

describe('import cycles', () => {
  // no-cycle reads the imported files from disk, so these probes are real files, removed afterwards.
  let folder: string;

  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(ROOT, 'test', 'lint-probe-'));
  });
  afterAll(() => {
    fs.rmSync(folder, { recursive: true, force: true });
  });

  /** Lints a.ts of a new pair of files a.ts and b.ts (each case has its own folder: import-x caches modules). */
  async function lintPair(a: string, b: string): Promise<(string | null)[]> {
    const pair = fs.mkdtempSync(path.join(folder, 'pair-'));
    fs.writeFileSync(path.join(pair, 'a.ts'), a);
    fs.writeFileSync(path.join(pair, 'b.ts'), b);
    const [result] = await eslint.lintFiles([path.join(pair, 'a.ts')]);
    return (result?.messages ?? []).map((message) => message.ruleId);
  }

  it('two modules importing each other fail', async () => {
    expect(
      await lintPair(
        "import { b } from './b';\nexport const a = () => b;\n",
        "import { a } from './a';\nexport const b = () => a;\n",
      ),
    ).toEqual([CYCLE]);
  });

  it('a type-only import back is no cycle (nothing of it exists at run time)', async () => {
    expect(
      await lintPair(
        "import { b } from './b';\nexport type A = string;\nexport const a = () => b;\n",
        "import type { A } from './a';\nexport const b = (value: A) => value;\n",
      ),
    ).toEqual([]);
  });
});
