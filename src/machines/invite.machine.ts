// The /invite?token flow (spec §2): validate when signed in, otherwise send the token on to /login.
import { assign, fromPromise, setup } from 'xstate';

/** A valid invite: its workspace, and whether the person already belonged to it (the link opened again). */
export interface AcceptedInvite {
  workspaceId: string;
  alreadyMember: boolean;
}

export type InviteOutcome =
  | { kind: 'login'; notice: 'invalidInviteToken' }
  | { kind: 'login'; notice: 'loginRequired'; token: string }
  | ({ kind: 'workspace' } & AcceptedInvite);

export interface InviteInput {
  token: string | null;
  isLoggedIn: boolean;
}

interface InviteContext extends InviteInput {
  outcome: InviteOutcome;
}

export const inviteMachine = setup({
  types: { input: {} as InviteInput, context: {} as InviteContext, output: {} as InviteOutcome },
  actors: {
    validateInvite: fromPromise<AcceptedInvite, { token: string }>(async () => {
      throw new Error('validateInvite is not provided');
    }),
  },
  guards: {
    isTokenMissing: ({ context }) => !context.token,
    isSignedOut: ({ context }) => !context.isLoggedIn,
  },
  actions: {
    decideInvalidToken: assign({ outcome: { kind: 'login', notice: 'invalidInviteToken' } as InviteOutcome }),
    decideLoginRequired: assign({
      outcome: ({ context }) => ({
        kind: 'login' as const,
        notice: 'loginRequired' as const,
        token: context.token ?? '',
      }),
    }),
    decideWorkspace: assign({
      outcome: ({ event }) => {
        const { workspaceId, alreadyMember } = (event as unknown as { output: AcceptedInvite }).output;
        return { kind: 'workspace' as const, workspaceId, alreadyMember };
      },
    }),
  },
}).createMachine({
  id: 'invite',
  description: 'Opening an invite link.',
  context: ({ input }) => ({ ...input, outcome: { kind: 'login', notice: 'invalidInviteToken' } }),
  initial: 'start',
  output: ({ context }) => context.outcome,
  states: {
    start: {
      always: [
        { guard: 'isTokenMissing', target: 'tokenMissing' },
        { guard: 'isSignedOut', target: 'loginRequired' },
        { target: 'validating' },
      ],
    },
    validating: {
      invoke: {
        id: 'validateInvite',
        src: 'validateInvite',
        input: ({ context }) => ({ token: context.token ?? '' }),
        onDone: { target: 'accepted' },
        onError: { target: 'rejected' },
      },
    },
    tokenMissing: {
      type: 'final',
      entry: 'decideInvalidToken',
      description: "'Invalid invite token', go to /login.",
    },
    loginRequired: {
      type: 'final',
      entry: 'decideLoginRequired',
      description: "'Login required', go to /login carrying the token.",
    },
    accepted: { type: 'final', entry: 'decideWorkspace', description: 'Go to /workspace/{workspaceId}.' },
    rejected: {
      type: 'final',
      entry: 'decideInvalidToken',
      description: "'Invalid invite token', go to /login.",
    },
  },
});
