// Transition coverage for model-based tests: every state and transition of a machine, and those a real run took.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, InspectionEvent } from 'xstate';

function guardName(transition: AnyTransitionDefinition): string {
  const guard = transition.guard as unknown;
  if (!guard) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String(guard.type);
  if (typeof guard === 'function') {
    // Higher-order guards (and/or/not) are functions that carry their operands as `guards`.
    const parts = (guard as { guards?: unknown[] }).guards;
    return Array.isArray(parts) ? `${guard.name || 'combined'}(${parts.map(String).join(',')})` : guard.name;
  }
  return String(guard);
}

export function transitionKey(transition: AnyTransitionDefinition): string {
  const targets = transition.target?.map((node) => node.id).join(',') ?? '(none)';
  const guard = guardName(transition);
  return `${transition.source.id} --${String(transition.eventType) || 'always'}${guard ? ` [${guard}]` : ''}--> ${targets}`;
}

function walk(node: AnyStateNode, visit: (node: AnyStateNode) => void) {
  visit(node);
  for (const child of Object.values(node.states)) walk(child, visit);
}

/** All state ids and transition keys a machine defines (eventless `always` included). */
function machineInventory(machine: AnyStateMachine) {
  const states = new Set<string>();
  const transitions = new Set<string>();
  walk(machine.root, (node) => {
    states.add(node.id);
    for (const list of node.transitions.values()) for (const t of list) transitions.add(transitionKey(t));
    for (const t of node.always ?? []) transitions.add(transitionKey(t));
  });
  return { states, transitions };
}

/** Records the states entered and transitions taken by every machine actor it inspects, keyed by machine id. */
export class CoverageRecorder {
  readonly states = new Map<string, Set<string>>();
  readonly transitions = new Map<string, Set<string>>();

  readonly inspect = (event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep' && event.type !== '@xstate.snapshot') return;
    const logic = (event.actorRef as unknown as { logic?: AnyStateMachine }).logic;
    if (!logic || !('root' in logic)) return;
    const machineId = logic.id;
    if (event.type === '@xstate.microstep') {
      const taken = this.transitions.get(machineId) ?? new Set<string>();
      const passed = this.states.get(machineId) ?? new Set<string>();
      for (const t of event._transitions) {
        taken.add(transitionKey(t));
        // Transient states (left at once by `always`) never show in a snapshot, only as a transition's source.
        passed.add(t.source.id);
      }
      this.transitions.set(machineId, taken);
      this.states.set(machineId, passed);
    }
    const snapshot = event.snapshot as unknown as { _nodes?: AnyStateNode[] };
    const entered = this.states.get(machineId) ?? new Set<string>();
    for (const node of snapshot._nodes ?? []) entered.add(node.id);
    this.states.set(machineId, entered);
  };

  missing(machine: AnyStateMachine) {
    const inventory = machineInventory(machine);
    const states = this.states.get(machine.id) ?? new Set();
    const transitions = this.transitions.get(machine.id) ?? new Set();
    return {
      states: [...inventory.states].filter((s) => !states.has(s)),
      transitions: [...inventory.transitions].filter((t) => !transitions.has(t)),
    };
  }
}
