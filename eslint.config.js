// ESLint flat config for Murmur.
//
// Besides the recommended rule sets, this file enforces the import direction of the app with eslint-plugin-import-x
// (`no-restricted-paths` zones on resolved files, so relative paths and the `@/` alias count alike; `no-cycle`):
//   routes -> features -> components / lib / api -> contract
//   machines -> pure statecharts (xstate, the contract and the pure JWT helper only)
//   server -> contract/ only, never src/; src -> never server/; contract/ -> only itself
// and with Murmur's own rules (eslint-rules.js): a relative import stays inside its area (beyond it, the path
// aliases `@contract/`, `@/`, `@server/`, `@test/`, `@scripts/` name the place), and no two server domains import
// each other. test/unit/lint-boundaries.test.ts proves each restriction fires.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import murmur from './eslint-rules.js';
import tseslint from 'typescript-eslint';

const CODE = '{js,jsx,mjs,cjs,ts,tsx,mts,cts}';
const ROOT = import.meta.dirname;

/** Feature folders (src/features/<name>/), read at lint time. */
function listFeatures() {
  try {
    return fs
      .readdirSync(path.join(ROOT, 'src', 'features'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * A `no-restricted-imports` option forbidding every package but `allowed` (and their subpaths); relative and aliased
 * imports are left to the zones below.
 * @param {string[]} allowed
 * @param {string} message
 */
const onlyPackages = (allowed, message) => ({
  patterns: [
    { regex: `^(?![./]|@(?:contract|server|test|scripts)?/|(?:${allowed.join('|')})(?:/|$))`, message },
  ],
});

const MACHINES = 'Machines are pure statecharts: inject side effects with machine.provide()';
const FEATURES = 'Features do not import each other: move shared code to src/components or src/lib';
const LAYERS =
  'src/api, src/lib and src/components are shared layers: they may not import src/routes or src/features';
const SERVER = 'The server shares only the contract with the SPA (contract/), never src/';
const SPA = 'The SPA does not import server code: shared shapes belong in contract/';
const CONTRACT =
  "contract/ imports only zod, csv-stringify (the exports' CSV writer) and itself: both the SPA and the server depend on it";

// Files under `target` may not import files under `from` (but those under `except`, relative to `from`). Zones see
// the file an import resolves to; an import that does not resolve fails the typecheck instead.
const zones = [
  {
    target: 'src/machines',
    from: 'src',
    except: ['./machines', './lib/jwt.ts'],
    message: MACHINES,
  },
  { target: ['src/api', 'src/lib', 'src/components'], from: ['src/routes', 'src/features'], message: LAYERS },
  ...listFeatures().map((feature) => ({
    target: `src/features/${feature}`,
    from: 'src/features',
    except: [`./${feature}`],
    message: FEATURES,
  })),
  { target: 'server', from: 'src', message: SERVER },
  { target: 'src', from: 'server', message: SPA },
  { target: 'contract', from: ['src', 'server', 'test', 'scripts'], message: CONTRACT },
];

export default defineConfig([
  globalIgnores(
    ['dist/', 'dist-*/', 'coverage/', '.data/', 'node_modules/', 'docs/', 'src/routeTree.gen.ts'],
    'murmur/ignores',
  ),

  js.configs.recommended,
  tseslint.configs.recommended,

  {
    name: 'murmur/base',
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  // Globals per environment.
  {
    name: 'murmur/globals/browser',
    files: [`src/**/*.${CODE}`],
    languageOptions: { globals: globals.browser },
  },
  {
    name: 'murmur/globals/node',
    files: [`server/**/*.${CODE}`, `scripts/**/*.${CODE}`, `*.${CODE}`],
    languageOptions: { globals: globals.node },
  },
  {
    // Tests run both in Node and in DOM/browser environments.
    name: 'murmur/globals/test',
    files: [`test/**/*.${CODE}`],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },

  // React hooks (and React Compiler) rules for app and test code.
  {
    ...reactHooks.configs.flat.recommended,
    name: 'murmur/react-hooks',
    files: [`src/**/*.${CODE}`, `test/**/*.${CODE}`],
  },

  // Import direction and cycles, on files resolved as TypeScript does (tsconfig.json's paths give the aliases).
  {
    name: 'murmur/imports',
    plugins: { 'import-x': importX, murmur },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: path.join(ROOT, 'tsconfig.json') }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones }],
      // Type-only imports never form a cycle at run time; the rule skips them. Packages are not followed.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'murmur/relative-within-area': 'error',
      'murmur/no-domain-cycle': 'error',
    },
  },
  {
    name: 'murmur/imports/machines',
    files: [`src/machines/**/*.${CODE}`],
    rules: { 'no-restricted-imports': ['error', onlyPackages(['xstate'], MACHINES)] },
  },
  {
    name: 'murmur/imports/contract',
    files: [`contract/**/*.${CODE}`],
    rules: { 'no-restricted-imports': ['error', onlyPackages(['zod', 'csv-stringify'], CONTRACT)] },
  },
]);
