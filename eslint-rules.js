// Murmur's own ESLint rules, about where code lives (eslint.config.js turns them on; test/unit/lint-boundaries.test.ts
// proves each fires). import-x's zones say which folder may import which; these two say how far a relative path may
// climb and that no two server domains depend on each other.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = import.meta.dirname;

/** Path aliases (tsconfig.json's `paths`, vite.config.ts's `alias`), longest first. */
const ALIASES = [
  ['@contract/', 'contract/'],
  ['@scripts/', 'scripts/'],
  ['@server/', 'server/'],
  ['@test/', 'test/'],
  ['@/', 'src/'],
];

const posix = (p) => p.split(path.sep).join('/');

/**
 * The area a repository-relative path belongs to: the contract, the scripts, a feature of the SPA
 * (`src/features/<name>`), a top folder of `src`, `server` or `test` (`server/billing`, `src/api`, `test/support`), or
 * the top of `src`, `server` or `test` for files there. A relative import stays inside its area.
 * @param {string} file
 */
function areaOf(file) {
  const parts = file.split('/');
  if (parts[0] === 'contract' || parts[0] === 'scripts') return parts[0];
  if (parts[0] === 'src' && parts[1] === 'features' && parts.length > 3) return `src/features/${parts[2]}`;
  if (['src', 'server', 'test'].includes(parts[0]))
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0];
  return null;
}

const within = (file, area) => file === area || file.startsWith(`${area}/`);

/** The repository-relative path an import names (without resolving extensions), or null for a package. */
function target(fromFile, specifier) {
  if (specifier.startsWith('./') || specifier.startsWith('../')) {
    return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  }
  for (const [alias, dir] of ALIASES)
    if (specifier.startsWith(alias)) return dir + specifier.slice(alias.length);
  return null;
}

function aliasFor(file) {
  for (const [alias, dir] of ALIASES) if (file.startsWith(dir)) return alias + file.slice(dir.length);
  return file;
}

/** Calls whose first argument names a module: dynamic imports and Vitest's module mocks. */
const MODULE_CALLS = new Set(['mock', 'doMock', 'unmock', 'importActual', 'importMock']);

/** Calls `report(node, specifier)` for every module a file names in an import, export or module mock. */
function visitSpecifiers(report) {
  const literal = (node, source) => {
    if (source?.type === 'Literal' && typeof source.value === 'string') report(node, source.value, source);
  };
  return {
    ImportDeclaration: (node) => literal(node, node.source),
    ExportNamedDeclaration: (node) => literal(node, node.source),
    ExportAllDeclaration: (node) => literal(node, node.source),
    ImportExpression: (node) => literal(node, node.source),
    CallExpression(node) {
      const callee = node.callee;
      if (
        callee.type === 'MemberExpression' &&
        callee.object.type === 'Identifier' &&
        callee.object.name === 'vi' &&
        callee.property.type === 'Identifier' &&
        MODULE_CALLS.has(callee.property.name)
      ) {
        literal(node, node.arguments[0]);
      }
    },
  };
}

const fileOf = (context) => posix(path.relative(ROOT, context.filename));

/** A relative import may not climb past the top of its file's area: beyond it, the alias names the place. */
const relativeWithinArea = {
  meta: {
    type: 'problem',
    fixable: 'code',
    docs: {
      description: 'A relative import stays inside its area; other places are imported through an alias',
    },
    messages: {
      climbs: "'{{specifier}}' climbs out of {{area}}/: import it as '{{alias}}'",
    },
    schema: [],
  },
  create(context) {
    const file = fileOf(context);
    const area = areaOf(file);
    if (!area) return {};
    return visitSpecifiers((node, specifier, source) => {
      if (!specifier.startsWith('.')) return;
      const named = target(file, specifier);
      if (within(named, area)) return;
      const alias = aliasFor(named);
      context.report({
        node: source,
        messageId: 'climbs',
        data: { specifier, area, alias },
        fix: alias === named ? null : (fixer) => fixer.replaceText(source, `'${alias}'`),
      });
    });
  },
};

/** The server's domains: its folders (files at the top of `server/` are shared pieces, not a domain). */
function domainOf(file) {
  const match = /^server\/([^/]+)\//.exec(file);
  return match ? `server/${match[1]}` : null;
}

const IMPORTS =
  /(?:^|[\n;])\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\bfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function listCode(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) listCode(full, out);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** @type {Map<string, Map<string, string>> | undefined} domain → (domain it imports → one file that does) */
let domainGraph;

/** The server's domain graph, read from disk once per lint run (type-only imports do not count, as in no-cycle). */
function readDomainGraph() {
  if (domainGraph) return domainGraph;
  domainGraph = new Map();
  for (const full of listCode(path.join(ROOT, 'server'))) {
    const file = posix(path.relative(ROOT, full));
    const from = domainOf(file);
    if (!from) continue;
    const text = fs.readFileSync(full, 'utf8');
    for (const match of text.matchAll(IMPORTS)) {
      if (match[1]) continue;
      const named = target(file, match[2] ?? match[3]);
      const to = named && domainOf(named);
      if (!to || to === from) continue;
      const edges = domainGraph.get(from) ?? new Map();
      if (!edges.has(to)) edges.set(to, file);
      domainGraph.set(from, edges);
    }
  }
  return domainGraph;
}

/** A path of imports from domain `start` back to `goal`, as "a (file) → b (file) → …", or null. */
function pathBack(graph, start, goal) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const domain = queue.shift();
    for (const [next, file] of graph.get(domain) ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, { domain, file });
      if (next === goal) {
        const steps = [];
        for (let at = goal; previous.get(at); at = previous.get(at).domain)
          steps.unshift(previous.get(at).file);
        return steps.join(' → ');
      }
      queue.push(next);
    }
  }
  return null;
}

/** No two server domains import each other, directly or through others: the dependency between domains is a tree. */
const noDomainCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Server domains do not import each other' },
    messages: {
      cycle:
        '{{from}} imports {{to}}, which already imports {{from}} ({{path}}): move what both need to a shared place, or turn one direction around',
    },
    schema: [],
  },
  create(context) {
    const file = fileOf(context);
    const from = domainOf(file);
    if (!from) return {};
    return visitSpecifiers((node, specifier, source) => {
      if (node.importKind === 'type' || node.exportKind === 'type') return;
      const named = target(file, specifier);
      const to = named && domainOf(named);
      if (!to || to === from) return;
      const back = pathBack(readDomainGraph(), to, from);
      if (back) context.report({ node: source, messageId: 'cycle', data: { from, to, path: back } });
    });
  },
};

export default {
  meta: { name: 'murmur' },
  rules: { 'relative-within-area': relativeWithinArea, 'no-domain-cycle': noDomainCycle },
};
