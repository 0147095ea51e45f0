// Runs a decision statechart to its final state and returns its output; route guards await this.
import {
  createActor,
  waitFor,
  type AnyStateMachine,
  type InputFrom,
  type InspectionEvent,
  type OutputFrom,
} from 'xstate';

const DECISION_TIMEOUT_MS = 70_000;

export async function decide<M extends AnyStateMachine>(
  machine: M,
  input: InputFrom<M>,
  inspect?: (event: InspectionEvent) => void,
): Promise<OutputFrom<M>> {
  const actor = createActor(machine, { input, inspect });
  actor.start();
  try {
    // Decision machines always end in a final state; an actor that errors rejects waitFor.
    const snapshot = (await waitFor(actor, (s) => (s as { status: string }).status !== 'active', {
      timeout: DECISION_TIMEOUT_MS,
    })) as { status: string; output: unknown; error?: unknown };
    if (snapshot.status === 'error') throw snapshot.error;
    return snapshot.output as OutputFrom<M>;
  } finally {
    actor.stop();
  }
}
