// One person owns at most TRIAL_WORKSPACES_PER_PERSON workspaces on a running trial: creating another is 409
// trial_limit and writes nothing, even when the requests come at once; a trial that ended or moved to a paid plan frees
// its place, and other people's trials are theirs.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIAL_WORKSPACES_PER_PERSON } from '@contract/workspaces';
import { memberships, workspaces } from '@server/db/schema';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, as, type Person } from '@test/support/workspaces.fixtures';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server?.close());

const create = (person: Person, name = 'Trial') =>
  as(server, person, { method: 'POST', url: '/api/workspaces', payload: { name, language: 'en' } });

async function ownedCount(person: Person) {
  const rows = await server.db.select().from(memberships).where(eq(memberships.userId, person.id));
  return rows.length;
}

const REFUSAL = {
  error: 'trial_limit',
  message: `You already own ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a free trial. Move one to a paid plan, or wait for a trial to end, before creating another.`,
};

describe('the trial workspaces one person may own', () => {
  it(`allows ${TRIAL_WORKSPACES_PER_PERSON}, then refuses with 409 trial_limit and writes nothing`, async () => {
    const person = await server.createUser();
    const ids: string[] = [];
    for (let index = 0; index < TRIAL_WORKSPACES_PER_PERSON; index++) {
      const res = await create(person, `Trial ${index}`);
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    const refused = await create(person, 'One too many');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual(REFUSAL);
    expect(await ownedCount(person)).toBe(TRIAL_WORKSPACES_PER_PERSON);
    expect(await server.db.select().from(workspaces).where(eq(workspaces.name, 'One too many'))).toEqual([]);

    // Someone else's trials are not counted against them, nor theirs against this person.
    const other = await server.createUser();
    expect((await create(other)).statusCode).toBe(201);

    // A trial that has ended frees its place; so does one moved to a paid plan.
    await server.db
      .update(workspaces)
      .set({ planExpiredAt: sql`now() - interval '1 day'` })
      .where(eq(workspaces.id, ids[0]!));
    expect((await create(person, 'After an ended trial')).statusCode).toBe(201);
    expect((await create(person)).statusCode).toBe(409);
    await server.db
      .update(workspaces)
      .set({ plan: 'pro', planExpiredAt: null })
      .where(eq(workspaces.id, ids[1]!));
    expect((await create(person, 'After an upgrade')).statusCode).toBe(201);
    expect((await create(person)).statusCode).toBe(409);
  });

  it('counts the trials the person owns, not those they are only a member of', async () => {
    const person = await server.createUser();
    const owner = await server.createUser();
    for (let index = 0; index < TRIAL_WORKSPACES_PER_PERSON; index++) {
      const res = await create(owner);
      await addMember(server, res.json().id, person, 'manager');
    }
    expect((await create(person)).statusCode).toBe(201);
  });

  it('holds when the requests come at once: exactly the limit is created', async () => {
    const person = await server.createUser();
    const answers = await Promise.all(
      Array.from({ length: TRIAL_WORKSPACES_PER_PERSON + 3 }, (_, index) =>
        create(person, `At once ${index}`),
      ),
    );
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([
      ...Array<number>(TRIAL_WORKSPACES_PER_PERSON).fill(201),
      ...Array<number>(3).fill(409),
    ]);
    expect(await ownedCount(person)).toBe(TRIAL_WORKSPACES_PER_PERSON);
  });
});
