// An access token's sign-in (`sid`) must be its subject's (`sub`): a validly signed token naming another user's live
// sign-in is refused, whether that sign-in's state is read for it or already known, and neither user's own sign-in is
// harmed by it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import type { Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
let alice: Person;
let bob: Person;

beforeAll(async () => {
  // Long enough that a live answer read once is the one every later request of the test uses.
  server = await createTestServer({ SIGN_IN_STATE_MAX_AGE_SECONDS: '60' });
  [alice, bob] = await Promise.all([server.createUser(), server.createUser()]);
});
afterAll(() => server?.close());

const me = (token: string) =>
  server.app.inject({ method: 'GET', url: '/api/users/me', headers: { authorization: `Bearer ${token}` } });

async function signInOf(token: string): Promise<string> {
  const claims = await server.accessTokens.verify(token);
  return claims!.signInId;
}

describe("an access token naming another user's sign-in", () => {
  it('is refused, read from the database or known in memory; both users keep their own sign-ins', async () => {
    const bobsSignIn = await signInOf(bob.token);
    const forged = await server.accessTokens.sign(alice.id, bobsSignIn);

    // Bob's sign-in not read yet: its state is read for the forged token.
    const first = await me(forged);
    expect(first.statusCode).toBe(401);
    expect(first.json()).toEqual({ error: 'unauthorized', message: 'A valid access token is required.' });

    // Bob's own token reads it as live; the forged one is then refused from memory.
    const bobs = await me(bob.token);
    expect(bobs.statusCode).toBe(200);
    expect(bobs.json()).toMatchObject({ id: bob.id });
    const again = await me(forged);
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ error: 'unauthorized' });

    expect((await me(bob.token)).statusCode).toBe(200);
    const alices = await me(alice.token);
    expect(alices.statusCode).toBe(200);
    expect(alices.json()).toMatchObject({ id: alice.id });
    // Alice's own sign-in, named by her own token, is hers.
    const own = await server.accessTokens.sign(alice.id, await signInOf(alice.token));
    expect((await me(own)).statusCode).toBe(200);
  });
});
