// Model-based test of the /login/ decision (spec §2 and §4): every shortest and simple path of the statechart is
// executed through the real router. The backend answers users/me and the invite validation as each step says; the
// real decision actor must follow the path step by step, and the app must end where the final state means.
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import type { AcceptedInvite } from '@/machines/invite.machine';
import {
  loginRedirectMachine,
  type LoginRedirectInput,
  type UserWorkspaces,
} from '@/machines/login-redirect.machine';
import { messages } from '@/lib/messages';
import { notices } from '@/lib/notices';
import { lastWorkspaceKey } from '@/lib/storage-keys';
import {
  ME,
  decisionPaths,
  defaultsWith,
  heldCalls,
  locationOf,
  pathName,
  setupRouterTests,
  walkPath,
  type ActorEvent,
  type CallFor,
  type Endpoint,
  type ModelStep,
  type Scene,
} from '@test/support/router-harness';

/** What users/me (with the stored last-used workspace) can say: one variant per guard of choosingWorkspace. */
const USERS: Record<string, UserWorkspaces> = {
  lastUsedStillMember: { userId: 'u1', workspaceIds: ['w1', 'w2'], lastWorkspaceId: 'w2' },
  lastUsedNoLongerMember: { userId: 'u2', workspaceIds: ['w1', 'w2'], lastWorkspaceId: 'w9' },
  nothingStored: { userId: 'u3', workspaceIds: ['w3'], lastWorkspaceId: null },
  noWorkspace: { userId: 'u4', workspaceIds: [], lastWorkspaceId: 'w1' },
};
const INVITED = 'w-invited';

function eventsFor(snapshot: AnyMachineSnapshot): ActorEvent[] {
  if (snapshot.matches('loadingUser')) {
    return [
      ...Object.values(USERS).map((output) => ({ type: 'xstate.done.actor.loadUser', output })),
      { type: 'xstate.error.actor.loadUser', error: new Error('users/me failed') },
    ];
  }
  if (snapshot.matches('validatingInvite')) {
    return [
      ...[false, true].map((alreadyMember) => ({
        type: 'xstate.done.actor.validateInvite',
        output: { workspaceId: INVITED, alreadyMember },
      })),
      { type: 'xstate.error.actor.validateInvite', error: new Error('invite rejected') },
    ];
  }
  return [];
}

const inputs: LoginRedirectInput[] = [false, true].flatMap((isLoggedIn) =>
  [null, 'good'].map((inviteToken) => ({ isLoggedIn, inviteToken })),
);
const { paths, counts } = decisionPaths(loginRedirectMachine, inputs, eventsFor);

/** The backend call an actor outcome stands for, and its answer. */
const callFor: CallFor = (event) => {
  const { output } = event;
  switch (event.type) {
    case 'xstate.done.actor.loadUser': {
      const user = output as UserWorkspaces;
      return { endpoint: 'GET users/me', reply: { status: 200, body: ME(user.userId, user.workspaceIds) } };
    }
    case 'xstate.error.actor.loadUser':
      // A failure that is not retried: 403.
      return { endpoint: 'GET users/me', reply: { status: 403, body: { error: 'forbidden' } } };
    case 'xstate.done.actor.validateInvite': {
      const { workspaceId, alreadyMember } = output as AcceptedInvite;
      return {
        endpoint: 'POST user/me/invite',
        // A join is the spec's answer, `id` alone (§3, §7); only a repeat says it was already a member.
        reply: {
          status: 200,
          body: alreadyMember ? { id: workspaceId, already_member: true } : { id: workspaceId },
        },
      };
    }
    case 'xstate.error.actor.validateInvite':
      return { endpoint: 'POST user/me/invite', reply: { status: 404, body: { error: 'invalid token' } } };
    default:
      throw new Error(`no call for ${event.type}`);
  }
};

const waitingOn = (state: AnyMachineSnapshot): Endpoint =>
  state.matches('loadingUser') ? 'GET users/me' : 'POST user/me/invite';

const eventName = (event: ActorEvent) => {
  const [, kind, actor] = /^xstate\.(done|error)\.actor\.(\w+)$/.exec(event.type) ?? [];
  if (kind === 'error') return `${actor} fails`;
  const { output } = event;
  const user = output as UserWorkspaces;
  return actor === 'loadUser'
    ? `${actor} [${user.workspaceIds.join(',')}] last=${user.lastWorkspaceId}`
    : `${actor} ${JSON.stringify(output)}`;
};

const inputName = (input: LoginRedirectInput) =>
  `${input.isLoggedIn ? 'signed in' : 'signed out'}, ${input.inviteToken ? `token ${input.inviteToken}` : 'no token'}`;

/** The user the path's users/me answer describes, if it has one. */
function userOf(steps: ModelStep[]): UserWorkspaces | undefined {
  const done = steps.find((step) => step.event.type === 'xstate.done.actor.loadUser');
  return done?.event.output as UserWorkspaces | undefined;
}

async function expectLoginScreen() {
  expect(await screen.findByRole('heading', { name: 'Sign in to Murmur' })).toBeTruthy();
}

/** What each final state means on the real app. */
async function expectMeaning(state: AnyMachineSnapshot, scene: Scene, user: UserWorkspaces | undefined) {
  const at = () => locationOf(scene.app).pathname;
  const landsOn = async (pathname: string) => {
    await expect.poll(at).toBe(pathname);
    expect(await screen.findByRole('heading', { name: 'Saved queries' })).toBeTruthy();
  };
  switch (state.value) {
    case 'showLogin':
      await expectLoginScreen();
      expect(at()).toBe('/login');
      expect(screen.queryByText(messages.invalidInviteToken)).toBeNull();
      break;
    case 'inviteRejected':
      await expectLoginScreen();
      expect(await screen.findByText(messages.invalidInviteToken)).toBeTruthy();
      expect(screen.queryByText(notices.joinedWorkspace)).toBeNull();
      expect(at()).toBe('/login');
      break;
    case 'invitedWorkspace':
      await landsOn(`/workspace/${INVITED}/saved-queries`);
      // Confirmed, as a join code is; someone who already belonged is told so instead.
      if ((state.context as { decision: { alreadyMember: boolean } }).decision.alreadyMember) {
        expect(await screen.findByText(notices.alreadyMember)).toBeTruthy();
        expect(screen.queryByText(notices.joinedWorkspace)).toBeNull();
      } else {
        expect(await screen.findByText(notices.joinedWorkspace)).toBeTruthy();
        expect(screen.queryByText(notices.alreadyMember)).toBeNull();
      }
      break;
    case 'lastUsedWorkspace':
      await landsOn(`/workspace/${user!.lastWorkspaceId}/saved-queries`);
      break;
    case 'firstWorkspace':
      await landsOn(`/workspace/${user!.workspaceIds[0]}/saved-queries`);
      break;
    case 'workspaceCreation':
      await expect.poll(at).toBe('/workspace/create/name');
      break;
    default:
      // Still deciding: nothing is shown or left yet.
      expect(screen.queryByRole('heading', { name: 'Sign in to Murmur' })).toBeNull();
      expect(at()).toBe('/login');
  }
}

describe('login redirect statechart, paths run through the real router and API client', () => {
  const harness = setupRouterTests();
  const { runs, recorder } = harness;

  it('generates shortest and simple paths that reach every final state', () => {
    expect(counts.shortest).toBeGreaterThan(0);
    expect(counts.simple).toBeGreaterThan(0);
    const finals = new Set(paths.filter((p) => p.state.status === 'done').map((p) => p.state.value));
    expect([...finals].sort()).toEqual(
      [
        'firstWorkspace',
        'invitedWorkspace',
        'inviteRejected',
        'lastUsedWorkspace',
        'showLogin',
        'workspaceCreation',
      ].sort(),
    );
  });

  for (const path of paths) {
    it(`${inputName(path.input)}: ${pathName(path.steps, eventName)}`, async () => {
      const user = userOf(path.steps);
      if (user?.lastWorkspaceId) localStorage.setItem(lastWorkspaceKey(user.userId), user.lastWorkspaceId);
      const apiBaseUrl = harness.backend.begin(
        defaultsWith({ status: 200, body: ME('u0', ['w0']) }),
        heldCalls({ steps: path.steps, callFor, waitingOn }),
      );
      const { inviteToken, isLoggedIn } = path.input;
      const scene = harness.start({
        apiBaseUrl,
        url: inviteToken ? `/login?token=${inviteToken}` : '/login',
        signedIn: isLoggedIn,
      });

      await walkPath({
        steps: path.steps,
        backend: harness.backend,
        run: () => runs.of(loginRedirectMachine)[0],
        callFor,
        waitingOn,
      });
      await expectMeaning(path.state, scene, user);
      expect(runs.of(loginRedirectMachine)).toHaveLength(1);
    });
  }

  it('executed paths cover every state and every transition of the login redirect machine', () => {
    expect(recorder.missing(loginRedirectMachine)).toEqual({ states: [], transitions: [] });
  });
});
