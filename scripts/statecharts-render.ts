// Pure rendering of XState v5 machines into Markdown + Mermaid docs; the CLI
// (scripts/statecharts.ts) handles discovery, Prettier and file I/O.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

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

interface Edge {
  source: AnyStateNode;
  targets: AnyStateNode[];
  event: string;
  guard: string | undefined;
  actions: string[];
  reenter: boolean;
  description: string | undefined;
}

type Kind = 'guards' | 'actions' | 'actors';

interface Model {
  nodes: AnyStateNode[];
  edges: Edge[];
  invokes: Map<AnyStateNode, string[]>;
  /** Named implementation -> state paths that reference it. */
  uses: Record<Kind, Map<string, string[]>>;
}

const INLINE_FN_NAMES = new Set(['', 'anonymous', 'actions', 'entry', 'exit', 'guard']);

function toArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function fnName(value: object): string {
  const name = (value as { name?: unknown }).name;
  return typeof name === 'string' && !INLINE_FN_NAMES.has(name) ? name : '(inline)';
}

function typeOf(value: unknown): string | undefined {
  if (typeof value !== 'object' && typeof value !== 'function') return undefined;
  const type = (value as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

/** Higher-order guards (and/or/not) are functions carrying their operands in `.guards`. */
export function guardLabel(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  const type = typeOf(guard);
  if (typeof guard !== 'function') return type ?? '(inline)';
  const operands = (guard as { guards?: unknown }).guards;
  if (Array.isArray(operands)) return `${fnName(guard)}(${operands.map(guardLabel).join(', ')})`;
  const stateValue = (guard as { stateValue?: unknown }).stateValue;
  if (stateValue !== undefined) return `stateIn(${JSON.stringify(stateValue)})`;
  return type ?? fnName(guard);
}

function guardLeaves(guard: unknown): string[] {
  if (typeof guard === 'string') return [guard];
  const operands = (guard as { guards?: unknown } | undefined)?.guards;
  if (typeof guard === 'function' && Array.isArray(operands)) return operands.flatMap(guardLeaves);
  const type = typeof guard === 'object' ? typeOf(guard) : undefined;
  return type ? [type] : [];
}

/** Built-in action creators (assign, raise, ...) are functions with a `xstate.*` type. */
function actionLabel(action: unknown): string {
  if (typeof action === 'string') return action;
  const type = typeOf(action);
  if (typeof action === 'function') return type?.startsWith('xstate.') ? `${type.slice(7)}()` : fnName(action);
  return type ?? '(inline)';
}

function isNamedAction(action: unknown): boolean {
  return typeof action === 'string' || (typeof action === 'object' && typeOf(action) !== undefined);
}

export function statePath(node: AnyStateNode): string {
  return node.path.length === 0 ? '(root)' : node.path.join('.');
}

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return [node, ...Object.values(node.states).flatMap((child) => allNodes(child))];
}

function invokeNames(node: AnyStateNode): Array<{ id: string; name: string; inline: boolean }> {
  return node.invoke.map((inv, i) => {
    const generatedId = inv.id === `${i}.${node.id}`;
    const inline = typeof inv.src !== 'string' || inv.src.startsWith('xstate.invoke.');
    const name = !inline ? String(inv.src) : generatedId ? '(inline actor)' : inv.id;
    return { id: inv.id, name, inline };
  });
}

function eventLabel(t: AnyTransitionDefinition, actorById: Map<string, string>): string {
  const type = String(t.eventType);
  const delay = (t as { delay?: unknown }).delay;
  if (type === '') return 'always';
  if (delay !== undefined) {
    if (typeof delay === 'number') return `after ${delay}ms`;
    return typeof delay === 'string' ? `after ${delay}` : 'after (dynamic delay)';
  }
  const actorEvent = /^xstate\.(done|error|snapshot)\.actor\.(.+)$/.exec(type);
  if (actorEvent?.[1] && actorEvent[2]) {
    return `${actorEvent[1]}: ${actorById.get(actorEvent[2]) ?? actorEvent[2]}`;
  }
  return type.startsWith('xstate.done.state.') ? 'done' : type;
}

function pushUse(map: Map<string, string[]>, name: string, where: string): void {
  const list = map.get(name) ?? [];
  if (!list.includes(where)) list.push(where);
  map.set(name, list);
}

export function buildModel(machine: AnyStateMachine): Model {
  const nodes = allNodes(machine.root);
  const uses: Model['uses'] = { guards: new Map(), actions: new Map(), actors: new Map() };
  const invokes = new Map<AnyStateNode, string[]>();
  const actorById = new Map<string, string>();
  for (const node of nodes) {
    const named = invokeNames(node);
    invokes.set(node, named.map((inv) => inv.name));
    for (const inv of named) {
      actorById.set(inv.id, inv.name);
      if (!inv.inline) pushUse(uses.actors, inv.name, statePath(node));
    }
    const config = node.config as { entry?: unknown; exit?: unknown };
    for (const action of [...toArray(config.entry), ...toArray(config.exit)]) {
      if (isNamedAction(action)) pushUse(uses.actions, actionLabel(action), statePath(node));
    }
  }
  const edges: Edge[] = [];
  for (const node of nodes) {
    const defs = [...(node.always ?? []), ...[...node.transitions.values()].flat()];
    for (const t of defs) {
      const where = statePath(node);
      for (const leaf of guardLeaves(t.guard)) pushUse(uses.guards, leaf, where);
      for (const action of t.actions) {
        if (isNamedAction(action)) pushUse(uses.actions, actionLabel(action), where);
      }
      edges.push({
        source: node,
        targets: [...(t.target ?? [])],
        event: eventLabel(t, actorById),
        guard: t.guard === undefined ? undefined : guardLabel(t.guard),
        actions: t.actions.map(actionLabel),
        reenter: t.reenter,
        description: t.description,
      });
    }
  }
  return { nodes, edges, invokes, uses };
}

// Mermaid ids are global to the diagram, so they are derived from the full path.
const MERMAID_KEYWORDS = new Set(['state', 'note', 'direction', 'class', 'classdef', 'style', 'end', 'as', 'click', 'left', 'right', 'of', 'default']);

function assignIds(nodes: AnyStateNode[]): { ids: Map<AnyStateNode, string>; unique: (name: string) => string } {
  const ids = new Map<AnyStateNode, string>();
  const taken = new Set<string>();
  const unique = (name: string): string => {
    let base = name.replace(/[^A-Za-z0-9_]/g, '_');
    if (MERMAID_KEYWORDS.has(base.toLowerCase())) base += '_';
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
    taken.add(id);
    return id;
  };
  // The root is drawn as an "(any state)" pseudo-state, the source of root-level handlers.
  for (const node of nodes) ids.set(node, unique(node.path.length === 0 ? 'any_state' : node.path.join('_')));
  return { ids, unique };
}

function mermaidText(text: string): string {
  return text.replace(/[#;]/g, '').replace(/"/g, "'").replace(/\s+/g, ' ').trim();
}

function edgeLabel(edge: Edge): string {
  return mermaidText(edge.guard === undefined ? edge.event : `${edge.event} [${edge.guard}]`);
}

/** Mermaid lines (without the code fence) for the machine's statechart. */
export function renderMermaid(machine: AnyStateMachine): string[] {
  const model = buildModel(machine);
  const { ids, unique } = assignIds(model.nodes);
  const id = (node: AnyStateNode): string => ids.get(node) ?? 'unknown';
  // Edges declared inside a composite block pull both ends into that block in
  // Mermaid, so only sibling edges go inside blocks; the rest go at top level.
  const local = new Map<AnyStateNode, Edge[]>();
  const top: Edge[] = [];
  const comments: string[] = [];
  for (const edge of model.edges) {
    const parent = edge.source.parent;
    const siblings = edge.targets.length > 0 && edge.targets.every((t) => t.parent === parent);
    const selfLoop = edge.targets.length === 0;
    if (selfLoop && edge.source.type !== 'atomic' && edge.source !== machine.root) {
      comments.push(`%% ${statePath(edge.source)}: ${edgeLabel(edge)} (no target, actions only)`);
    } else if (parent && parent !== machine.root && parent.type !== 'parallel' && (siblings || selfLoop)) {
      local.set(parent, [...(local.get(parent) ?? []), edge]);
    } else top.push(edge);
  }
  const edgeLines = (edges: Edge[], pad: string): string[] =>
    edges.flatMap((edge) =>
      (edge.targets.length > 0 ? edge.targets : [edge.source]).map(
        (target) => `${pad}${id(edge.source)} --> ${id(target)} : ${edgeLabel(edge)}`,
      ),
    );
  const declare = (node: AnyStateNode, pad: string): string[] => {
    const deep = node.config.history === 'deep';
    const label = mermaidText(node.type === 'history' ? `${node.key} (H${deep ? '*' : ''})` : node.key);
    if (node.type === 'compound' || node.type === 'parallel') {
      const head = label === id(node) ? id(node) : `"${label}" as ${id(node)}`;
      return [`${pad}state ${head} {`, ...body(node, `${pad}  `), `${pad}}`];
    }
    const invoked = model.invokes.get(node) ?? [];
    // A bare id with a description would show the description instead of the name.
    if (label === id(node) && invoked.length === 0) return [`${pad}${label}`];
    const note = invoked.length > 0 ? [`${pad}${id(node)} : invokes ${mermaidText(invoked.join(', '))}`] : [];
    return [`${pad}state "${label}" as ${id(node)}`, ...note];
  };
  const body = (node: AnyStateNode, pad: string): string[] => {
    const children = Object.values(node.states);
    if (node.type === 'parallel') {
      return children.flatMap((child, i) => [...(i > 0 ? [`${pad}--`] : []), ...declare(child, pad)]);
    }
    const initial = node.initial.target.map((t) => `${pad}[*] --> ${id(t)}`);
    const finals = children.filter((c) => c.type === 'final').map((c) => `${pad}${id(c)} --> [*]`);
    return [...initial, ...children.flatMap((c) => declare(c, pad)), ...finals, ...edgeLines(local.get(node) ?? [], pad)];
  };
  const root = machine.root;
  const usesAny = top.some((e) => e.source === root || e.targets.includes(root));
  const anyNode = usesAny ? [`  state "(any state)" as ${id(root)}`] : [];
  // Regions need an enclosing composite for `--` separators.
  const wrapper = root.type === 'parallel' ? unique(machine.id) : '';
  const content = wrapper
    ? [`  [*] --> ${wrapper}`, `  state "${mermaidText(machine.id)}" as ${wrapper} {`, ...body(root, '    '), '  }']
    : body(root, '  ');
  return ['stateDiagram-v2', ...anyNode, ...content, ...edgeLines(top, '  '), ...comments.map((c) => `  ${c}`)];
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim() || '—';
}

const code = (text: string): string => (text === '' ? '' : `\`${text}\``);
const codeList = (items: string[]): string => items.map(code).join(', ');

/** Column-aligned GFM table, matching Prettier's default (`proseWrap: preserve`) output. */
export function table(headers: string[], rows: string[][]): string[] {
  const cells = [headers, ...rows].map((row) => row.map(cell));
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((row) => [...(row[i] ?? '')].length)));
  const line = (row: string[]): string =>
    `| ${row.map((c, i) => c + ' '.repeat((widths[i] ?? 0) - [...c].length)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

function implementationNames(machine: AnyStateMachine, kind: Kind): string[] {
  const provided = (machine.implementations as Partial<Record<Kind, Record<string, unknown>>>)[kind];
  return Object.keys(provided ?? {});
}

/** `h` is the heading prefix for this machine's subsections (`##` or `###`). */
function renderMachineSection(entry: MachineEntry, h: string): string[] {
  const { machine } = entry;
  const model = buildModel(machine);
  const config = (node: AnyStateNode): { entry?: unknown; exit?: unknown } => node.config;
  const stateRows = model.nodes.map((node) => [
    code(statePath(node)),
    node.type,
    codeList(toArray(config(node).entry).map(actionLabel)),
    codeList(toArray(config(node).exit).map(actionLabel)),
    codeList(model.invokes.get(node) ?? []),
    node.description ?? '',
  ]);
  const edgeRows = model.edges.map((e) => [
    code(statePath(e.source)),
    code(e.event),
    code(e.guard ?? ''),
    e.targets.length === 0 ? '(stays, actions only)' : codeList(e.targets.map(statePath)) + (e.reenter ? ' (reenter)' : ''),
    codeList(e.actions),
    e.description ?? '',
  ]);
  const lists = (['guards', 'actions', 'actors'] as const).flatMap((kind) => {
    const names = [...new Set([...model.uses[kind].keys(), ...implementationNames(machine, kind)])].sort();
    if (names.length === 0) return [];
    const title = kind[0]?.toUpperCase() + kind.slice(1);
    const rows = names.map((name) => [code(name), codeList(model.uses[kind].get(name) ?? []) || 'not referenced']);
    return [`${h} ${title}`, '', ...table([title.slice(0, -1), 'Used in'], rows), ''];
  });
  return [
    ...(machine.root.description ? [machine.root.description, ''] : []),
    `Export: ${code(entry.exportName)}.`,
    '',
    `${h} Diagram`,
    '',
    '```mermaid',
    ...renderMermaid(machine),
    '```',
    '',
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
    "To edit a machine visually, copy its `setup({ ... }).createMachine({ ... })` expression into Stately's editor (<https://stately.ai/editor>, Import → From code); guards, actions and actors are named in `setup()`, so the code pastes unchanged and can be copied back the same way.",
  ];
  return `${lines.join('\n')}\n`;
}
