// Model-based test of the /invite?token flow (spec §2): every shortest and simple path of the statechart is executed
// through the real router. The backend answers the invite validation as each step says; the real decision actor
// must follow the path, and the app must end where the final state means (with the toast it shows).
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { inviteMachine, type AcceptedInvite, type InviteInput } from '@/machines/invite.machine';
import { loginRedirectMachine } from '@/machines/login-redirect.machine';
import { messages } from '@/lib/messages';
import { notices } from '@/lib/notices';
import {
  type DecisionRuns,
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
  type Scene,
} from '@test/support/router-harness';

const INVITED = 'w-invited';
/** The signed-in user's own workspace: where the login decision sends them after a refused invite. */
const OWN = 'w1';

function eventsFor(snapshot: AnyMachineSnapshot): ActorEvent[] {
  if (!snapshot.matches('validating')) return [];
  return [
    ...[false, true].map((alreadyMember) => ({
      type: 'xstate.done.actor.validateInvite',
      output: { workspaceId: INVITED, alreadyMember },
    })),
    { type: 'xstate.error.actor.validateInvite', error: new Error('invite rejected') },
  ];
}

const inputs: InviteInput[] = [null, 'tok'].flatMap((token) =>
  [false, true].map((isLoggedIn) => ({ token, isLoggedIn })),
);
const { paths, counts } = decisionPaths(inviteMachine, inputs, eventsFor);

const callFor: CallFor = (event) => {
  if (event.type === 'xstate.done.actor.validateInvite') {
    const { workspaceId, alreadyMember } = event.output as AcceptedInvite;
    return {
      endpoint: 'POST user/me/invite',
      // A join is the spec's answer, `id` alone (§3, §7); only a repeat says it was already a member.
      reply: {
        status: 200,
        body: alreadyMember ? { id: workspaceId, already_member: true } : { id: workspaceId },
      },
    };
  }
  if (event.type === 'xstate.error.actor.validateInvite') {
    return { endpoint: 'POST user/me/invite', reply: { status: 404, body: { error: 'invalid token' } } };
  }
  throw new Error(`no call for ${event.type}`);
};
const waitingOn = () => 'POST user/me/invite';

const eventName = (event: ActorEvent) =>
  event.type.startsWith('xstate.error')
    ? 'validateInvite fails'
    : `validateInvite ${JSON.stringify(event.output)}`;

const inputName = (input: InviteInput) =>
  `${input.isLoggedIn ? 'signed in' : 'signed out'}, ${input.token ? `token ${input.token}` : 'no token'}`;

/** What each final state means on the real app. */
async function expectMeaning(
  state: AnyMachineSnapshot,
  input: InviteInput,
  scene: Scene,
  runs: DecisionRuns,
) {
  const at = () => locationOf(scene.app).pathname;
  const loginRuns = () => runs.of(loginRedirectMachine);
  /** 'Invalid invite token' and /login: a signed-in user is then sent on to their workspace by /login's decision. */
  const invalidTokenAndLogin = async () => {
    expect(await screen.findByText(messages.invalidInviteToken)).toBeTruthy();
    await expect.poll(() => loginRuns()[0]?.status).toBe('done');
    expect(loginRuns()).toHaveLength(1);
    // The token is not carried on to /login.
    expect(loginRuns()[0]!.context).toMatchObject({ isLoggedIn: input.isLoggedIn, inviteToken: null });
    if (input.isLoggedIn) {
      expect(loginRuns()[0]!.value).toBe('firstWorkspace');
      await expect.poll(at).toBe(`/workspace/${OWN}/saved-queries`);
    } else {
      expect(await screen.findByRole('heading', { name: 'Sign in to Murmur' })).toBeTruthy();
      expect(locationOf(scene.app)).toEqual({ pathname: '/login', search: {} });
    }
    expect(screen.queryByText(messages.loginRequired)).toBeNull();
    expect(screen.queryByText(notices.joinedWorkspace)).toBeNull();
  };
  switch (state.value) {
    case 'tokenMissing':
    case 'rejected':
      await invalidTokenAndLogin();
      break;
    case 'loginRequired':
      expect(await screen.findByText(messages.loginRequired)).toBeTruthy();
      expect(await screen.findByRole('heading', { name: 'Sign in to Murmur' })).toBeTruthy();
      expect(locationOf(scene.app)).toEqual({ pathname: '/login', search: { token: input.token } });
      // /login's decision received the token.
      expect(loginRuns()[0]?.context).toMatchObject({ isLoggedIn: false, inviteToken: input.token });
      expect(screen.queryByText(messages.invalidInviteToken)).toBeNull();
      break;
    case 'accepted':
      await expect.poll(at).toBe(`/workspace/${INVITED}/saved-queries`);
      expect(await screen.findByRole('heading', { name: 'Saved queries' })).toBeTruthy();
      // Confirmed, as a join code is; someone who already belonged is told so instead.
      if ((state.context as { outcome: AcceptedInvite }).outcome.alreadyMember) {
        expect(await screen.findByText(notices.alreadyMember)).toBeTruthy();
        expect(screen.queryByText(notices.joinedWorkspace)).toBeNull();
      } else {
        expect(await screen.findByText(notices.joinedWorkspace)).toBeTruthy();
        expect(screen.queryByText(notices.alreadyMember)).toBeNull();
      }
      expect(loginRuns()).toHaveLength(0);
      expect(screen.queryByText(messages.invalidInviteToken)).toBeNull();
      break;
    default:
      // Still validating: no notice, no navigation yet.
      expect(at()).toBe('/invite');
      expect(screen.queryByText(messages.invalidInviteToken)).toBeNull();
      expect(loginRuns()).toHaveLength(0);
  }
}

describe('invite statechart, paths run through the real router and API client', () => {
  const harness = setupRouterTests();
  const { runs, recorder } = harness;

  it('generates shortest and simple paths that reach every final state', () => {
    expect(counts.shortest).toBeGreaterThan(0);
    expect(counts.simple).toBeGreaterThan(0);
    const finals = new Set(paths.filter((p) => p.state.status === 'done').map((p) => p.state.value));
    expect([...finals].sort()).toEqual(['accepted', 'loginRequired', 'rejected', 'tokenMissing']);
  });

  for (const path of paths) {
    it(`${inputName(path.input)}: ${pathName(path.steps, eventName)}`, async () => {
      const apiBaseUrl = harness.backend.begin(
        defaultsWith({ status: 200, body: ME('u1', [OWN]) }),
        heldCalls({ steps: path.steps, callFor, waitingOn }),
      );
      const { token, isLoggedIn } = path.input;
      const scene = harness.start({
        apiBaseUrl,
        url: token ? `/invite?token=${token}` : '/invite',
        signedIn: isLoggedIn,
      });

      await walkPath({
        steps: path.steps,
        backend: harness.backend,
        run: () => runs.of(inviteMachine)[0],
        callFor,
        waitingOn,
      });
      await expectMeaning(path.state, path.input, scene, runs);
      expect(runs.of(inviteMachine)).toHaveLength(1);
    });
  }

  it('executed paths cover every state and every transition of the invite machine', () => {
    expect(recorder.missing(inviteMachine)).toEqual({ states: [], transitions: [] });
  });
});
