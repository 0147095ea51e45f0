// Pure rendering of XState v5 machines into Markdown + Mermaid docs; the CLI
// (scripts/statecharts.ts) handles discovery, Prettier and file I/O.
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import {
  buildModel,
  implementationNames,
  statePath,
  type EdgeInfo,
  type ImplementationKind,
  type MachineModel,
} from './statecharts-model';

export interface MachineEntry {
  exportName: string;
  machine: AnyStateMachine;
}

export interface MachineDocInput {
  /** Repo-relative path shown in the doc, e.g. `src/machines/session.machine.ts`. */
  sourcePath: string;
  /** Link to the source relative to the generated doc. */
  sourceLink: string;
  machines: MachineEntry[];
}

export interface IndexEntry extends MachineDocInput {
  docFile: string;
}

export interface Diagram {
  /** Mermaid source without the code fence. */
  lines: string[];
  /** Transitions left out of the diagram (see `renderDiagram`). */
  hidden: EdgeInfo[];
}

// Mermaid ids are global to the diagram, so they are derived from the full state path.
const MERMAID_KEYWORDS = new Set([
  'state',
  'note',
  'direction',
  'class',
  'classdef',
  'style',
  'end',
  'as',
  'click',
]);

function assignIds(nodes: AnyStateNode[]): {
  ids: Map<AnyStateNode, string>;
  unique: (name: string) => string;
} {
  const ids = new Map<AnyStateNode, string>();
  const taken = new Set<string>();
  const unique = (name: string): string => {
    let base = name.replace(/[^A-Za-z0-9_]/g, '_');
    if (MERMAID_KEYWORDS.has(base.toLowerCase())) base += '_';
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${String(n)}`;
    taken.add(id);
    return id;
  };
  // The root is drawn as an "(any state)" pseudo-state: the source of root-level handlers.
  for (const node of nodes) ids.set(node, unique(node.path.length === 0 ? 'any_state' : node.path.join('_')));
  return { ids, unique };
}

/** Mermaid labels end at `#`, `;` or a newline. */
function mermaidText(text: string): string {
  return text.replace(/[#;]/g, '').replace(/"/g, "'").replace(/\s+/g, ' ').trim();
}

function edgeLabel(edge: EdgeInfo): string {
  return mermaidText(edge.guard === undefined ? edge.event : `${edge.event} [${edge.guard}]`);
}

function isDescendant(node: AnyStateNode, ancestor: AnyStateNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p === ancestor) return true;
  return false;
}

/**
 * Mermaid state diagram for a machine. Layout constraints of Mermaid shape it:
 * - an edge written inside a composite block pulls both ends into that block, so only
 *   edges between siblings are written there; all others go at the top level;
 * - self-loops inside composites and edges from a composite into its own children break
 *   the layout, so transitions that stay in an atomic state are listed inside its box,
 *   and those that stay inside a composite state are returned as `hidden` instead.
 */
export function renderDiagram(machine: AnyStateMachine, model: MachineModel = buildModel(machine)): Diagram {
  const root = machine.root;
  const { ids, unique } = assignIds(model.states.map((s) => s.node));
  const id = (node: AnyStateNode): string => ids.get(node) ?? 'unknown';
  const notes = new Map<AnyStateNode, string[]>();
  for (const s of model.states) {
    if (s.invokes.length > 0) notes.set(s.node, [`invokes ${s.invokes.join(', ')}`]);
  }
  const local = new Map<AnyStateNode, EdgeInfo[]>();
  const top: EdgeInfo[] = [];
  const hidden: EdgeInfo[] = [];
  for (const edge of model.edges) {
    const { source, targets } = edge;
    const stays = targets.every((t) => t === source);
    const parent = source.parent;
    if (stays && (source === root || source.type === 'atomic')) {
      // UML internal-transition notation: event [guard] / actions.
      const actions = edge.actions.length > 0 ? ` / ${edge.actions.join(', ')}` : '';
      const label = edgeLabel(edge) + (targets.length > 0 && edge.reenter ? ' (re-enter)' : '') + actions;
      notes.set(source, [...(notes.get(source) ?? []), label]);
    } else if (source !== root && (stays || targets.some((t) => isDescendant(t, source)))) {
      hidden.push(edge);
    } else if (
      parent &&
      parent !== root &&
      parent.type !== 'parallel' &&
      targets.every((t) => t.parent === parent)
    ) {
      local.set(parent, [...(local.get(parent) ?? []), edge]);
    } else top.push(edge);
  }
  const edgeLines = (edges: EdgeInfo[], pad: string): string[] =>
    edges.flatMap((edge) =>
      edge.targets.map((t) => `${pad}${id(edge.source)} --> ${id(t)} : ${edgeLabel(edge)}`),
    );
  const noteLines = (node: AnyStateNode, pad: string): string[] =>
    (notes.get(node) ?? []).map((note) => `${pad}${id(node)} : ${mermaidText(note)}`);

  const declare = (node: AnyStateNode, pad: string): string[] => {
    const deep = node.config.history === 'deep';
    const label = mermaidText(node.type === 'history' ? `${node.key} (H${deep ? '*' : ''})` : node.key);
    if (node.type === 'compound' || node.type === 'parallel') {
      const head = label === id(node) ? id(node) : `"${label}" as ${id(node)}`;
      return [`${pad}state ${head} {`, ...body(node, `${pad}  `), `${pad}}`];
    }
    // A bare id with a description line would show the description instead of the name.
    if (label === id(node) && !notes.has(node)) return [`${pad}${label}`];
    return [`${pad}state "${label}" as ${id(node)}`, ...noteLines(node, pad)];
  };
  const body = (node: AnyStateNode, pad: string): string[] => {
    const children = Object.values(node.states);
    if (node.type === 'parallel') {
      return children.flatMap((child, i) => [...(i > 0 ? [`${pad}--`] : []), ...declare(child, pad)]);
    }
    return [
      ...node.initial.target.map((t) => `${pad}[*] --> ${id(t)}`),
      ...children.flatMap((child) => declare(child, pad)),
      ...children.filter((child) => child.type === 'final').map((child) => `${pad}${id(child)} --> [*]`),
      ...edgeLines(local.get(node) ?? [], pad),
    ];
  };

  const usesAny = notes.has(root) || top.some((e) => e.source === root || e.targets.includes(root));
  const anyState = usesAny ? [`  state "(any state)" as ${id(root)}`, ...noteLines(root, '  ')] : [];
  // Regions need an enclosing composite for their `--` separators.
  const wrapper = root.type === 'parallel' ? unique(machine.id) : '';
  const content = wrapper
    ? [
        `  [*] --> ${wrapper}`,
        `  state "${mermaidText(machine.id)}" as ${wrapper} {`,
        ...body(root, '    '),
        '  }',
      ]
    : body(root, '  ');
  return { lines: ['stateDiagram-v2', ...anyState, ...content, ...edgeLines(top, '  ')], hidden };
}

/** Mermaid lines (without the code fence) for the machine's statechart. */
export function renderMermaid(machine: AnyStateMachine): string[] {
  return renderDiagram(machine).lines;
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim() || '—';
}

const code = (text: string): string => (text === '' ? '' : `\`${text}\``);
const codeList = (items: string[]): string => items.map(code).join(', ');

/** Column-aligned GFM table, as Prettier prints it with the default `proseWrap: preserve`. */
export function table(headers: string[], rows: string[][]): string[] {
  const cells = [headers, ...rows].map((row) => row.map(cell));
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

const TITLES: Record<ImplementationKind, [string, string]> = {
  guards: ['Guards', 'Guard'],
  actions: ['Actions', 'Action'],
  actors: ['Actors', 'Actor'],
};

function targetText(edge: EdgeInfo): string {
  if (edge.targets.length === 0) return '(stays, actions only)';
  return codeList(edge.targets.map(statePath)) + (edge.reenter ? ' (re-enter)' : '');
}

/** `h` is the heading prefix for this machine's subsections (`##` or `###`). */
function renderMachineSection(entry: MachineEntry, h: string): string[] {
  const { machine } = entry;
  const model = buildModel(machine);
  const diagram = renderDiagram(machine, model);
  const hiddenText = diagram.hidden
    .map((e) => `${code(statePath(e.source))} on ${code(edgeLabel(e))}`)
    .join(', ');
  const stateRows = model.states.map((s) => [
    code(s.path),
    s.node.type,
    codeList(s.entry),
    codeList(s.exit),
    codeList(s.invokes),
    s.node.description ?? '',
  ]);
  const edgeRows = model.edges.map((e) => [
    code(statePath(e.source)),
    code(e.event),
    code(e.guard ?? ''),
    targetText(e),
    codeList(e.actions),
    e.description ?? '',
  ]);
  const lists = (['guards', 'actions', 'actors'] as const).flatMap((kind) => {
    const names = [...new Set([...model.uses[kind].keys(), ...implementationNames(machine, kind)])].sort();
    if (names.length === 0) return [];
    const [title, column] = TITLES[kind];
    const rows = names.map((name) => [
      code(name),
      codeList(model.uses[kind].get(name) ?? []) || 'not referenced',
    ]);
    return [`${h} ${title}`, '', ...table([column, 'Used in'], rows), ''];
  });
  return [
    ...(machine.root.description ? [machine.root.description, ''] : []),
    `Export: ${code(entry.exportName)}.`,
    '',
    `${h} Diagram`,
    '',
    '```mermaid',
    ...diagram.lines,
    '```',
    '',
    ...(hiddenText
      ? [`Not drawn, because they stay inside a composite state (see Transitions): ${hiddenText}.`, '']
      : []),
    `${h} States`,
    '',
    ...table(['State', 'Type', 'Entry', 'Exit', 'Invokes', 'Description'], stateRows),
    '',
    `${h} Transitions`,
    '',
    ...(edgeRows.length > 0
      ? table(['Source', 'Event', 'Guard', 'Target', 'Actions', 'Description'], edgeRows)
      : ['No transitions.']),
    '',
    ...lists,
  ];
}

function generatedNote(what: string): string {
  return `> Generated from ${what} by \`npm run statecharts\`. Do not edit by hand.`;
}

/** One Markdown document for a machine file (one section per exported machine). */
export function renderMachineDoc(input: MachineDocInput): string {
  const note = generatedNote(`[\`${input.sourcePath}\`](${input.sourceLink})`);
  const [single] = input.machines;
  const lines =
    input.machines.length === 1 && single
      ? [`# Statechart: ${single.machine.id}`, '', note, '', ...renderMachineSection(single, '##')]
      : [
          `# Statecharts: ${code(input.sourcePath)}`,
          '',
          note,
          '',
          ...input.machines.flatMap((m) => [`## ${m.machine.id}`, '', ...renderMachineSection(m, '###')]),
        ];
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The docs/statecharts/README.md index. */
export function renderIndex(entries: IndexEntry[]): string {
  const rows = entries.flatMap((e) =>
    e.machines.map((m) => [`[${m.machine.id}](${e.docFile})`, code(m.exportName), code(e.sourcePath)]),
  );
  const lines = [
    '# Statecharts',
    '',
    generatedNote('`src/machines/*.machine.ts`'),
    '',
    'One page per machine file, each with a Mermaid diagram and tables of states, transitions, guards, actions and actors. `npm run statecharts:check` (part of `npm test`) fails when these pages are stale.',
    '',
    ...(rows.length > 0 ? table(['Machine', 'Export', 'Source'], rows) : ['No machines yet.']),
    '',
    "To edit a machine visually, paste its `setup({ ... }).createMachine({ ... })` expression into Stately's editor (<https://stately.ai/editor>, Import in the Code panel): guards, actions and actors are named in `setup()`, so the code pastes unchanged.",
  ];
  return `${lines.join('\n')}\n`;
}
