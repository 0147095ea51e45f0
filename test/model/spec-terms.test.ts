// Spec §4's terms, each a state the drawn statechart shows: a reader of docs/statecharts finds every one in a
// diagram, not only as a guard's name or a transition's description. The pages are generated from the machines
// (npm run statecharts, checked fresh by statecharts:check), so each term is looked up in both.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { checkoutReturnMachine } from '@/machines/checkout-return.machine';
import { loginRedirectMachine } from '@/machines/login-redirect.machine';
import { sessionMachine } from '@/machines/session.machine';
import { workspaceGuardMachine } from '@/machines/workspace-guard.machine';

const TERMS: Array<{ term: string; machine: AnyStateMachine; page: string; state: string }> = [
  { term: 'signed out', machine: sessionMachine, page: 'session', state: 'signedOut' },
  { term: 'signed in', machine: sessionMachine, page: 'session', state: 'signedIn' },
  {
    term: 'expired (the access token)',
    machine: sessionMachine,
    page: 'session',
    state: 'signedIn.accessTokenExpired',
  },
  {
    term: 'Only one refresh runs at a time',
    machine: sessionMachine,
    page: 'session',
    state: 'signedIn.refreshing',
  },
  {
    term: "'Refresh token expired'",
    machine: sessionMachine,
    page: 'session',
    state: 'signedIn.refreshTokenExpired',
  },
  { term: 'the login screen', machine: loginRedirectMachine, page: 'login-redirect', state: 'showLogin' },
  {
    term: 'a valid invite token',
    machine: loginRedirectMachine,
    page: 'login-redirect',
    state: 'invitedWorkspace',
  },
  {
    term: 'the last-used workspace',
    machine: loginRedirectMachine,
    page: 'login-redirect',
    state: 'lastUsedWorkspace',
  },
  {
    term: 'the first workspace',
    machine: loginRedirectMachine,
    page: 'login-redirect',
    state: 'firstWorkspace',
  },
  {
    term: 'workspace creation',
    machine: loginRedirectMachine,
    page: 'login-redirect',
    state: 'workspaceCreation',
  },
  { term: 'plan-required', machine: workspaceGuardMachine, page: 'workspace-guard', state: 'planRequired' },
  {
    term: 'invalid-workspace',
    machine: workspaceGuardMachine,
    page: 'workspace-guard',
    state: 'invalidWorkspace',
  },
  { term: 'redirect to /login', machine: workspaceGuardMachine, page: 'workspace-guard', state: 'toLogin' },
  {
    term: 'expired (the checkout)',
    machine: checkoutReturnMachine,
    page: 'checkout-return',
    state: 'expired',
  },
];

/** The Mermaid diagram of a docs/statecharts page. */
function diagramOf(page: string): string {
  const text = readFileSync(resolve(process.cwd(), 'docs/statecharts', `${page}.md`), 'utf8');
  const diagram = /```mermaid\n([\s\S]*?)```/.exec(text)?.[1];
  if (!diagram) throw new Error(`no diagram in docs/statecharts/${page}.md`);
  return diagram;
}

describe('spec §4 terms in the drawn statecharts', () => {
  it.each(TERMS)('$term: state $state of $page', ({ machine, page, state }) => {
    // A state of the machine...
    expect(machine.getStateNodeById(`${machine.id}.${state}`).key).toBe(state.split('.').at(-1));
    // ...drawn in its diagram, as a node and as the target of a transition.
    const node = state.replaceAll('.', '_');
    const diagram = diagramOf(page);
    expect(diagram).toMatch(new RegExp(`^\\s*(${node}|state "?[^"]*"? as ${node}|state ${node} \\{)$`, 'm'));
    expect(diagram).toMatch(new RegExp(`--> ${node} :`));
  });
});
