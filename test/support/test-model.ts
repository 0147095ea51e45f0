// Path generation for model-based tests. createTestModel() refuses machines that invoke actors; the TestModel class
// takes any logic, and invoked actors' outcomes are supplied as ordinary events (xstate.done.actor.<id> /
// xstate.error.actor.<id>) by each test's event list.
import { TestModel, type StatePath } from 'xstate/graph';
import { getNextSnapshot, type AnyStateMachine, type EventFromLogic, type SnapshotFrom } from 'xstate';
import { transitionKey } from './coverage';

export function testModelOf<M extends AnyStateMachine>(
  machine: M,
  events: (snapshot: SnapshotFrom<M>) => EventFromLogic<M>[],
) {
  return new TestModel(machine, {
    events: events as (snapshot: unknown) => EventFromLogic<M>[],
    // States are told apart by value and context only (not by the ids of invoked children).
    serializeState: (snapshot) => JSON.stringify({ value: snapshot.value, context: snapshot.context }),
  });
}

type Path<M extends AnyStateMachine> = StatePath<SnapshotFrom<M>, EventFromLogic<M>>;

/**
 * Shortest paths reach every state, but a transition into an already-reached state lies on none of them.
 * For each transition no path takes yet, this adds the shortest path to its source followed by its event.
 */
export function withEveryTransition<M extends AnyStateMachine, P extends Path<M>>(
  machine: M,
  paths: P[],
  events: (snapshot: SnapshotFrom<M>) => EventFromLogic<M>[],
): Array<P | (P & { extendedBy: string })> {
  const taken = new Set<string>();
  const enabled = (snapshot: SnapshotFrom<M>, event: EventFromLogic<M>) =>
    machine.getTransitionData(snapshot as never, event).map(transitionKey);
  for (const path of paths) {
    for (let i = 1; i < path.steps.length; i += 1) {
      for (const key of enabled(path.steps[i - 1]!.state, path.steps[i]!.event)) taken.add(key);
    }
  }
  const extra: Array<P & { extendedBy: string }> = [];
  for (const path of [...paths].sort((a, b) => a.steps.length - b.steps.length)) {
    for (const event of events(path.state)) {
      const keys = enabled(path.state, event).filter((key) => !taken.has(key));
      if (keys.length === 0) continue;
      keys.forEach((key) => taken.add(key));
      const state = getNextSnapshot(machine, path.state, event);
      extra.push({
        ...path,
        state,
        steps: [...path.steps, { event, state }],
        extendedBy: keys.join(' & '),
      });
    }
  }
  return [...paths, ...extra];
}
