// ESLint flat config for Murmur.
//
// Besides the recommended rule sets, this file enforces the import direction of the app:
//   routes -> features -> components / lib / api -> (nothing app-level)
//   machines -> pure statecharts (xstate only, no React, router, HTTP or UI code)
// The restrictions use the core `no-restricted-imports` rule with regex patterns that cover the `@/` alias
// (mapped to src/ in vite.config.ts and tsconfig.json), Vite's root-absolute `/src/...` form and relative paths.
// Relative paths are matched per directory depth, so `../x` is only flagged where it really leaves the folder.
import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const CODE = '{js,jsx,mjs,cjs,ts,tsx,mts,cts}';
/** Relative imports are matched exactly for files up to this many folders below their top-level folder. */
const MAX_DEPTH = 8;

const MACHINES_MESSAGE = 'Machines are pure statecharts: inject side effects with machine.provide()';
const FEATURES_MESSAGE = 'Features do not import each other: move shared code to src/components or src/lib';
const LAYERS_MESSAGE =
  'src/api, src/lib and src/components are shared layers: they may not import src/routes or src/features';

/** @param {string} text */
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Regexes (as strings) matching an import, from a file `depth` folders below `dir` (depth 0 = directly in
 * `dir`), of one of `targets`. Both `dir` and `targets` are paths relative to src/, e.g. dir 'machines' or
 * 'features/posts', targets 'api' or 'features/settings'. Relative imports are resolved by walking up to each
 * ancestor of `dir` (up to the project root) and checking the rest of the path. Without a depth, any number of
 * `../` is accepted (a looser fallback for files nested deeper than MAX_DEPTH).
 * @param {string} dir
 * @param {string[]} targets
 * @param {number} [depth]
 */
function srcImportRegexes(dir, targets, depth) {
  const alternatives = (/** @type {string[]} */ paths) => `(?:${paths.map(escapeRegex).join('|')})(?:/|$)`;
  const dirParts = dir.split('/');
  const relative = [];
  for (let up = 1; up <= dirParts.length + 1; up += 1) {
    // The folder reached after going up `up` levels from `dir`, relative to src/ (null = the project root).
    const ancestor = up <= dirParts.length ? dirParts.slice(0, dirParts.length - up).join('/') : null;
    const rest = targets.flatMap((target) => {
      if (ancestor === null) return [`src/${target}`];
      if (ancestor === '') return [target];
      return target.startsWith(`${ancestor}/`) ? [target.slice(ancestor.length + 1)] : [];
    });
    if (rest.length === 0) continue;
    const ups = depth === undefined ? '(?:\\.\\./)+' : `(?:\\.\\./){${depth + up}}`;
    relative.push(`^(?:\\./)?${ups}${alternatives(rest)}`);
  }
  return [
    `^@/${alternatives(targets)}`, // the @/ alias
    `^/?src/${alternatives(targets)}`, // Vite's root-absolute /src/... (or a bare src/...)
    ...relative,
  ];
}

/**
 * One config block per depth (plus a catch-all first) restricting imports for files under src/<dir>.
 * Later blocks win, so the exact per-depth patterns override the catch-all for ordinary files.
 * @param {{ dir: string, message: string, targets: string[], packages?: string[] }} options
 */
function restrictImports({ dir, message, targets, packages = [] }) {
  /** @param {number} [depth] */
  const rule = (depth) => [
    'error',
    {
      patterns: [...packages, ...srcImportRegexes(dir, targets, depth)].map((regex) => ({
        regex,
        message,
        caseSensitive: true,
      })),
    },
  ];
  const blocks = [
    {
      name: `murmur/imports/${dir}`,
      files: [`src/${dir}/**/*.${CODE}`],
      rules: { 'no-restricted-imports': rule() },
    },
  ];
  for (let depth = 0; depth <= MAX_DEPTH; depth += 1) {
    blocks.push({
      name: `murmur/imports/${dir}/depth-${depth}`,
      files: [`src/${dir}/${'*/'.repeat(depth)}*.${CODE}`],
      rules: { 'no-restricted-imports': rule(depth) },
    });
  }
  return blocks;
}

/** Feature folders (src/features/<name>/), read at lint time. */
function listFeatures() {
  try {
    return fs
      .readdirSync(path.join(import.meta.dirname, 'src', 'features'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

const features = listFeatures();

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

  // Import direction.
  ...restrictImports({
    dir: 'machines',
    message: MACHINES_MESSAGE,
    packages: ['^(?:react|react-dom|@xstate/react|wretch)(?:/|$)', '^@tanstack/'],
    targets: ['api', 'routes', 'features', 'components'],
  }),
  ...['api', 'lib', 'components'].flatMap((dir) =>
    restrictImports({ dir, message: LAYERS_MESSAGE, targets: ['routes', 'features'] }),
  ),
  ...features.flatMap((feature) => {
    const others = features.filter((other) => other !== feature);
    return others.length === 0
      ? []
      : restrictImports({
          dir: `features/${feature}`,
          message: FEATURES_MESSAGE,
          targets: others.map((other) => `features/${other}`),
        });
  }),
]);
