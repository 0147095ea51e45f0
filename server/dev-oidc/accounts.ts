// The people the development provider knows: demo accounts (seeded into the database with the same subjects) and
// anyone who signs in "as a new person". A subject is derived from the e-mail address, so it is stable across
// restarts and the same for both vendors the provider stands in for.
import { createHash } from 'node:crypto';
import type { Privilege } from '@contract/workspaces';

/** The tenant the provider claims to be when it stands in for Microsoft (its `tid` claim). */
export const DEV_TENANT_ID = '00000000-0000-4000-8000-00000000d3e0';

export const DEMO_WORKSPACE = { id: 'demo', name: 'Murmur Demo' } as const;

export interface Person {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export interface DemoAccount extends Person {
  /** What the sign-in page says about the account. */
  role: string;
  /** Their privilege in the demo workspace, if any. */
  demoPrivilege: Privilege | null;
  staff: boolean;
  /** Staff only: their privilege in the internal (scraping) workspace, so signing in lands there. */
  internalPrivilege: Privilege | null;
}

export const DEMO_ACCOUNTS: readonly DemoAccount[] = [
  {
    email: 'ana@murmur.local',
    firstName: 'Ana',
    lastName: 'Owner',
    role: 'Owner of Murmur Demo',
    demoPrivilege: 'owner',
    staff: false,
    internalPrivilege: null,
  },
  {
    email: 'ben@murmur.local',
    firstName: 'Ben',
    lastName: 'Manager',
    role: 'Manager in Murmur Demo',
    demoPrivilege: 'manager',
    staff: false,
    internalPrivilege: null,
  },
  {
    email: 'cleo@murmur.local',
    firstName: 'Cleo',
    lastName: 'Viewer',
    role: 'Viewer in Murmur Demo',
    demoPrivilege: 'viewer',
    staff: false,
    internalPrivilege: null,
  },
  {
    email: 'sam@murmur.local',
    firstName: 'Sam',
    lastName: 'Staff',
    role: 'Murmur staff, owner of the internal workspace',
    demoPrivilege: null,
    staff: true,
    internalPrivilege: 'owner',
  },
];

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** The subject the provider issues for an e-mail address: the same address always gives the same subject. */
export function subjectFor(email: string): string {
  const digest = createHash('sha256')
    .update(`murmur-dev-oidc:${normalizeEmail(email)}`)
    .digest('base64url');
  return `dev-${digest.slice(0, 27)}`;
}

/** Who the provider can vouch for; new people join when they sign in. Lives as long as the server process. */
export function createDirectory() {
  const people = new Map<string, Person>(
    DEMO_ACCOUNTS.map((account) => [subjectFor(account.email), account]),
  );
  return {
    find: (subject: string): Person | undefined => people.get(subject),
    /** Remembers (or updates) a person and returns their subject. */
    add(person: Person): string {
      const subject = subjectFor(person.email);
      people.set(subject, { ...person, email: normalizeEmail(person.email) });
      return subject;
    },
  };
}

export type Directory = ReturnType<typeof createDirectory>;
