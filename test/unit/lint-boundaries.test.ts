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
const AREA = 'murmur/relative-within-area';
const DOMAIN_CYCLE = 'murmur/no-domain-cycle';

let eslint: ESLint;

// Loading the config and resolving the first imports takes a few seconds on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The rule ids reported for `code` as if it were the file at `filePath` (relative to the project root). */
async function ruleIds(filePath: string, code: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
  return (result?.messages ?? []).map((message) => message.ruleId).sort();
}

describe('forbidden imports fail', () => {
  it.each([
    // Machines are pure statecharts.
    ['src/machines/probe.ts', 'react', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '@xstate/react', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '@tanstack/react-router', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', 'wretch', RESTRICTED_IMPORTS],
    ['src/machines/probe.ts', '@/api/api', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '@/routes/-guards', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '@/features/auth/sign-in', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '@/components/PageFrame', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '@/lib/toast', RESTRICTED_PATHS],
    ['src/machines/probe.ts', '@/config', RESTRICTED_PATHS],
    // Features do not import each other, by relative path (which also climbs out of its area) or by alias.
    ['src/features/auth/probe.ts', '../settings/MembersPage', [RESTRICTED_PATHS, AREA]],
    ['src/features/auth/probe.ts', '@/features/settings/MembersPage', RESTRICTED_PATHS],
    ['src/features/settings/nested/probe.ts', '@/features/workspace/WorkspaceLayout', RESTRICTED_PATHS],
    // The shared layers import neither routes nor features.
    ['src/api/probe.ts', '@/routes/-guards', RESTRICTED_PATHS],
    ['src/lib/probe.ts', '@/features/auth/sign-in', RESTRICTED_PATHS],
    ['src/components/probe.ts', '@/features/settings/GeneralSettingsPage', RESTRICTED_PATHS],
    // The server shares only the contract with the SPA, and the SPA imports no server code.
    ['server/probe.ts', '@/features/auth/sign-in', RESTRICTED_PATHS],
    ['server/auth/probe.ts', '@/lib/jwt', RESTRICTED_PATHS],
    ['server/auth/probe.ts', '../../src/lib/jwt', [RESTRICTED_PATHS, AREA]],
    ['src/lib/probe.ts', '@server/app', RESTRICTED_PATHS],
    ['contract/probe.ts', '@server/config', RESTRICTED_PATHS],
    // The contract imports only zod, csv-stringify and itself.
    ['contract/probe.ts', '@/api/api', RESTRICTED_PATHS],
    ['contract/probe.ts', '@test/support/real-server', RESTRICTED_PATHS],
    ['contract/probe.ts', 'react', RESTRICTED_IMPORTS],
    // A relative import does not climb out of its area: past it, an alias names the place.
    ['src/features/auth/probe.ts', '../../components/PageFrame', AREA],
    ['src/routes/probe.ts', '../features/settings/MembersPage', AREA],
    ['server/billing/probe.ts', '../errors', AREA],
    ['server/social/insights/probe.ts', '../../workspaces/routes', AREA],
    ['test/server/probe.ts', '../support/real-server', AREA],
    ['scripts/probe.ts', '../server/app', AREA],
    ['src/lib/probe.ts', '../../contract/workspaces', AREA],
    // No two server domains import each other (the social domain already imports the billing one's limits).
    ['server/billing/probe.ts', '@server/social/insights/routes', DOMAIN_CYCLE],
  ])('%s importing %s: %s', async (filePath, specifier, ruleId) => {
    expect(await ruleIds(filePath, `import '${specifier}';\n`)).toEqual([ruleId].flat().sort());
  });
});

describe('allowed imports pass', () => {
  it.each([
    ['src/machines/probe.ts', 'xstate'],
    ['src/machines/probe.ts', '@contract/workspaces'],
    ['src/machines/probe.ts', '@/lib/jwt'],
    ['src/features/auth/probe.ts', './sign-in-error'],
    ['src/features/auth/probe.ts', '@/components/PageFrame'],
    ['src/features/insight/nested/probe.ts', '../csv'],
    ['src/routes/probe.ts', '@/features/settings/MembersPage'],
    ['server/probe.ts', '@contract/workspaces'],
    ['server/auth/probe.ts', '@contract/auth'],
    ['server/social/insights/probe.ts', '../reads'],
    ['server/social/probe.ts', '@server/billing/limits'],
    ['contract/probe.ts', 'zod/mini'],
    ['contract/probe.ts', 'csv-stringify/browser/esm/sync'],
    ['contract/probe.ts', './workspaces'],
    ['test/probe.ts', '@server/app'],
    ['test/server/probe.ts', '@test/support/real-server'],
  ])('%s importing %s', async (filePath, specifier) => {
    expect(await ruleIds(filePath, `import '${specifier}';\n`)).toEqual([]);
  });

  it('a type-only import of a domain that imports this one back is no cycle', async () => {
    const code =
      "import type { InsightScope } from '@server/social/insights/request';\nexport type S = InsightScope;\n";
    expect(await ruleIds('server/billing/probe.ts', code)).toEqual([]);
  });
});

describe('the climbing import names its alias', () => {
  it('fixes a relative import out of its area into the alias', async () => {
    const [result] = await eslint.lintText(
      "import { ApiError } from '../errors';\nexport const E = ApiError;\n",
      {
        filePath: path.join(ROOT, 'server/billing/probe.ts'),
      },
    );
    const fixer = new ESLint({ cwd: ROOT, fix: true });
    const [fixed] = await fixer.lintText(
      "import { ApiError } from '../errors';\nexport const E = ApiError;\n",
      {
        filePath: path.join(ROOT, 'server/billing/probe.ts'),
      },
    );
    expect(result?.messages[0]?.message).toBe(
      "'../errors' climbs out of server/billing/: import it as '@server/errors'",
    );
    expect(fixed?.output).toBe("import { ApiError } from '@server/errors';\nexport const E = ApiError;\n");
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
