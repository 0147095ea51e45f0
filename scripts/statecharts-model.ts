// Reads an XState v5 machine into plain, display-ready data for the statechart docs.
// Machines are built with setup(), so guards, actions and actors are usually names;
// inline implementations and built-in action creators still get a readable label.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';

interface StateInfo {
  node: AnyStateNode;
  path: string;
  entry: string[];
  exit: string[];
  invokes: string[];
}

export interface EdgeInfo {
  source: AnyStateNode;
  targets: AnyStateNode[];
  /** Readable event: `LOGIN`, `always`, `done: refreshTokens`, `after 500ms`, ... */
  event: string;
  guard: string | undefined;
  actions: string[];
  reenter: boolean;
  description: string | undefined;
}

export type ImplementationKind = 'guards' | 'actions' | 'actors';

export interface MachineModel {
  states: StateInfo[];
  edges: EdgeInfo[];
  /** Named implementation -> paths of the states that reference it, in document order. */
  uses: Record<ImplementationKind, Map<string, string[]>>;
}

// Arrow functions written inline in a config pick up the property name they are assigned to.
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
function guardLabel(guard: unknown): string {
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

/** Built-in action creators (assign, raise, ...) are functions with an `xstate.*` type. */
function actionLabel(action: unknown): string {
  if (typeof action === 'string') return action;
  const type = typeOf(action);
  if (typeof action === 'function')
    return type?.startsWith('xstate.') ? `${type.slice(7)}()` : fnName(action);
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

/** XState names inline actor logic `xstate.invoke.<i>.<state id>` and defaults the id to `<i>.<state id>`. */
function invokeNames(node: AnyStateNode): Array<{ id: string; name: string; inline: boolean }> {
  return node.invoke.map((inv, i) => {
    const src = typeof inv.src === 'string' ? inv.src : '';
    const inline = src === '' || src.startsWith('xstate.invoke.');
    const name = !inline ? src : inv.id === `${i}.${node.id}` ? '(inline actor)' : inv.id;
    return { id: inv.id, name, inline };
  });
}

function eventLabel(t: AnyTransitionDefinition, actorById: Map<string, string>): string {
  const type = String(t.eventType);
  const delay = (t as { delay?: unknown }).delay;
  if (type === '') return 'always';
  if (delay !== undefined) {
    if (typeof delay === 'number') return `after ${String(delay)}ms`;
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

export function buildModel(machine: AnyStateMachine): MachineModel {
  const nodes = allNodes(machine.root);
  const uses: MachineModel['uses'] = { guards: new Map(), actions: new Map(), actors: new Map() };
  const actorById = new Map<string, string>();
  const states = nodes.map((node): StateInfo => {
    const path = statePath(node);
    const named = invokeNames(node);
    for (const inv of named) {
      actorById.set(inv.id, inv.name);
      if (!inv.inline) pushUse(uses.actors, inv.name, path);
    }
    // The raw config, because `node.entry` also holds XState's internal timer actions for `after`.
    const config = node.config as { entry?: unknown; exit?: unknown };
    const [entry, exit] = [toArray(config.entry), toArray(config.exit)];
    for (const action of [...entry, ...exit]) {
      if (isNamedAction(action)) pushUse(uses.actions, actionLabel(action), path);
    }
    return {
      node,
      path,
      entry: entry.map(actionLabel),
      exit: exit.map(actionLabel),
      invokes: named.map((inv) => inv.name),
    };
  });
  const edges = nodes.flatMap((node) =>
    [...(node.always ?? []), ...[...node.transitions.values()].flat()].map((t): EdgeInfo => {
      const where = statePath(node);
      for (const leaf of guardLeaves(t.guard)) pushUse(uses.guards, leaf, where);
      for (const action of t.actions) {
        if (isNamedAction(action)) pushUse(uses.actions, actionLabel(action), where);
      }
      return {
        source: node,
        targets: [...(t.target ?? [])],
        event: eventLabel(t, actorById),
        guard: t.guard === undefined ? undefined : guardLabel(t.guard),
        actions: t.actions.map(actionLabel),
        reenter: t.reenter,
        description: t.description,
      };
    }),
  );
  return { states, edges, uses };
}

/** Names provided through setup({ guards, actions, actors }), referenced or not. */
export function implementationNames(machine: AnyStateMachine, kind: ImplementationKind): string[] {
  const provided = (machine.implementations as Partial<Record<ImplementationKind, Record<string, unknown>>>)[
    kind
  ];
  return Object.keys(provided ?? {});
}
