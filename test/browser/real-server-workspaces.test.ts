// Workspaces and membership end to end against the REAL server (issue 3 item 8), as people do it: a new person creates
// a workspace with the wizard, invites a second person with a link, lets a third join with the join code, revokes a
// link, and after a restart of the server (app and embedded PostgreSQL, same data directory) everything is still there.
// The tests tell one story in order (each builds on the one before); every person has their own browser context.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { memberships, workspaces } from '@server/db/schema';
import { launchBrowser, newTestPage, pathOf, type TestPage } from '@test/support/browser';
import { waitForHeading, waitForPath } from '@test/support/browser-harness';
import { startRealServer, type RealServer } from '@test/support/real-server';

const PORT = Number(process.env.MURMUR_REAL_E2E_PORT ?? 4781);

interface Person {
  first: string;
  last: string;
  email: string;
}

const OWNER: Person = { first: 'Olga', last: 'Owner', email: 'olga.owner@example.com' };
const INVITED: Person = { first: 'Ines', last: 'Invited', email: 'ines.invited@example.com' };
const JOINER: Person = { first: 'Jon', last: 'Joiner', email: 'jon.joiner@example.com' };
const LATECOMER: Person = { first: 'Rita', last: 'Revoked', email: 'rita.revoked@example.com' };
const WORKSPACE_NAME = 'Harbour Analytics';

let server: RealServer;
let browser: Browser;
const contexts: TestPage[] = [];

/** What the story so far has produced. */
const story = {
  workspaceId: '',
  owner: undefined as Page | undefined,
};

beforeAll(async () => {
  [server, browser] = await Promise.all([startRealServer(PORT), launchBrowser()]);
});
afterAll(async () => {
  await Promise.allSettled(contexts.map((current) => current.context.close()));
  await Promise.allSettled([browser?.close(), server?.close()]);
});

/** A browser context of its own for one person (own storage and cookies). */
async function openBrowserFor(): Promise<Page> {
  const current = await newTestPage(browser, server.origin);
  contexts.push(current);
  return current.page;
}

function ownerPage(): Page {
  if (!story.owner || !story.workspaceId) throw new Error('the workspace of the first test is missing');
  return story.owner;
}

/** On the provider's page: signs in as a new person (or as the same person again: the subject follows the e-mail). */
async function signInAsNewPerson(page: Page, person: Person) {
  await page.waitForURL((url) => url.pathname.startsWith('/oidc/interaction/'));
  await waitForHeading(page, 'Sign in as a new person');
  await page.getByLabel('First name').fill(person.first);
  await page.getByLabel('Last name').fill(person.last);
  await page.getByLabel('E-mail address').fill(person.email);
  await page.getByRole('button', { name: 'Sign in as this person' }).click();
}

/** From the login screen: "Sign in with Google", then the provider's new-person form. */
async function signInWithGoogle(page: Page, person: Person) {
  await waitForHeading(page, 'Sign in to Murmur');
  await page.getByRole('button', { name: 'Sign in with Google' }).click();
  await signInAsNewPerson(page, person);
}

/** Waits for a toast (react-toastify renders them as alerts) with this text. */
async function expectToast(page: Page, text: string) {
  await page.getByRole('alert').filter({ hasText: text }).first().waitFor({ state: 'visible' });
}

/** Waits until the page is inside this workspace and the top bar names it. */
async function expectInWorkspace(page: Page, workspaceId: string, name: string) {
  await page.waitForURL((url) => url.pathname.startsWith(`/workspace/${workspaceId}/`));
  await page.getByRole('banner').getByText(name, { exact: true }).waitFor();
}

/** From any workspace page: the sidebar's Settings, then the Members tab. */
async function openMembersPage(page: Page) {
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Members' }).click();
  await waitForPath(page, `/workspace/${story.workspaceId}/settings/member`);
  await waitForHeading(page, 'Members');
}

/** The member table's row of this e-mail address. */
const memberRow = (page: Page, email: string) =>
  page
    .getByRole('table', { name: 'Members of this workspace' })
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name: email, exact: true }) });

/** The role a member has, as the owner's page shows it (a role select for people whose role the owner may change). */
async function shownRole(page: Page, person: Person): Promise<string> {
  const row = memberRow(page, person.email);
  await row.waitFor();
  const select = row.getByRole('combobox', { name: `Role of ${person.first} ${person.last}` });
  if ((await select.count()) > 0) return select.locator('option:checked').innerText();
  return (await row.getByRole('cell').nth(1).innerText()).trim();
}

async function memberEmails(page: Page): Promise<string[]> {
  const table = page.getByRole('table', { name: 'Members of this workspace' });
  await table.waitFor();
  // The e-mail is the first data cell after the row header (the name).
  const rows = await table.locator('tbody tr').all();
  return Promise.all(rows.map(async (row) => (await row.getByRole('cell').first().innerText()).trim()));
}

async function postgresStartTime(): Promise<string> {
  const result = await server.db.execute<{ started: string }>(
    sql`select pg_postmaster_start_time()::text as started`,
  );
  return result.rows[0]!.started;
}

describe('workspaces, invite links and join codes through the real server', () => {
  it('a new person signs in, fills the wizard and lands in their new workspace', async () => {
    const page = await openBrowserFor();
    story.owner = page;
    await page.goto('/login');
    await signInWithGoogle(page, OWNER);

    await waitForPath(page, '/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
    await page.getByLabel('Workspace name').fill(WORKSPACE_NAME);
    await page.getByRole('button', { name: 'Next' }).click();

    await waitForPath(page, '/workspace/create/language');
    await page.getByRole('radio', { name: /^German/ }).check();
    await page.getByRole('button', { name: 'Next' }).click();

    await waitForPath(page, '/workspace/create/user-info');
    // The provider's name claims reached the profile, so the step offers them.
    const firstName = page.getByLabel('First name');
    await expect.poll(() => firstName.inputValue()).toBe(OWNER.first);
    expect(await page.getByLabel('Last name (optional)').inputValue()).toBe(OWNER.last);
    await page.getByRole('button', { name: 'Create workspace' }).click();

    await page.waitForURL((url) => /^\/workspace\/[^/]+\/saved-queries$/.test(url.pathname));
    const workspaceId = /^\/workspace\/([^/]+)\//.exec(new URL(page.url()).pathname)![1]!;
    story.workspaceId = workspaceId;
    await expectInWorkspace(page, workspaceId, WORKSPACE_NAME);
    await expectToast(page, `Workspace “${WORKSPACE_NAME}” created`);

    const [row] = await server.db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
    expect(row).toMatchObject({ name: WORKSPACE_NAME, language: 'de' });
  });

  it('the owner creates an invite link; a signed-out person opens it, signs in and lands in the workspace', async () => {
    const owner = ownerPage();
    await owner.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await openMembersPage(owner);
    expect(await shownRole(owner, OWNER)).toBe('Owner');

    await owner.getByLabel('Role', { exact: true }).selectOption({ label: 'Manager' });
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const linkField = owner.getByLabel('Invite link', { exact: true });
    await linkField.waitFor();
    const link = await linkField.inputValue();
    expect(link).toMatch(new RegExp(`^${server.origin}/invite\\?token=[A-Za-z0-9_-]+$`));
    // Copy puts the same link on the clipboard.
    await owner.getByRole('button', { name: 'Copy Invite link' }).click();
    await expectToast(owner, 'Invite link copied');
    expect(await owner.evaluate(() => navigator.clipboard.readText())).toBe(link);
    const token = new URL(link).searchParams.get('token')!;

    const invited = await openBrowserFor();
    await invited.goto(link);
    await waitForPath(invited, `/login?token=${token}`);
    await expectToast(invited, 'Login required');
    await signInWithGoogle(invited, INVITED);
    await expectInWorkspace(invited, story.workspaceId, WORKSPACE_NAME);
    await expectToast(invited, 'You joined the workspace.');
    // The same link opened again: they already belong, and are told so (its use is not counted twice).
    await invited.goto(link);
    await expectInWorkspace(invited, story.workspaceId, WORKSPACE_NAME);
    await expectToast(invited, 'You already belong to this workspace.');

    await owner.reload();
    expect(await shownRole(owner, INVITED)).toBe('Manager');
    // The link counted its use.
    const linkRow = owner
      .getByRole('row')
      .filter({ has: owner.getByRole('button', { name: /^Revoke manager link/ }) });
    expect((await linkRow.getByRole('cell').nth(2).innerText()).trim()).toBe('1');
  });

  it('a third person joins with the join code shown on the members page', async () => {
    const owner = ownerPage();
    const codeField = owner.getByRole('textbox', { name: 'Join code', exact: true });
    await codeField.waitFor();
    const code = await codeField.inputValue();
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);

    const joiner = await openBrowserFor();
    await joiner.goto('/login');
    await signInWithGoogle(joiner, JOINER);
    await waitForPath(joiner, '/workspace/create/name');
    await joiner.getByRole('textbox', { name: 'Join code' }).fill(code);
    await joiner.getByRole('button', { name: 'Join with a code' }).click();
    await expectInWorkspace(joiner, story.workspaceId, WORKSPACE_NAME);
    await expectToast(joiner, 'You joined the workspace.');

    await owner.reload();
    expect(await shownRole(owner, JOINER)).toBe('Viewer');
  });

  it("a revoked link says 'Invalid invite token' to a signed-in person and sends them on", async () => {
    const owner = ownerPage();
    await owner.getByLabel('Role', { exact: true }).selectOption({ label: 'Viewer' });
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const linkField = owner.getByLabel('Invite link', { exact: true });
    await linkField.waitFor();
    const link = await linkField.inputValue();

    await owner.getByRole('button', { name: /^Revoke viewer link/ }).click();
    await expectToast(owner, 'Invite link revoked');
    // The link shown once goes with it, and the table keeps only the manager link.
    await linkField.waitFor({ state: 'detached' });
    await owner.getByRole('button', { name: /^Revoke viewer link/ }).waitFor({ state: 'detached' });

    const latecomer = await openBrowserFor();
    await latecomer.goto('/login');
    await signInWithGoogle(latecomer, LATECOMER);
    await waitForPath(latecomer, '/workspace/create/name');

    await latecomer.goto(link);
    await expectToast(latecomer, 'Invalid invite token');
    // /invite sends them to /login, whose decision sends a person without a workspace on to creation.
    await waitForPath(latecomer, '/workspace/create/name');
    await waitForHeading(latecomer, 'Name your workspace');
    expect(pathOf(latecomer)).toBe('/workspace/create/name');

    await owner.reload();
    await memberRow(owner, JOINER.email).waitFor();
    expect(await memberEmails(owner)).not.toContain(LATECOMER.email);
  });

  it('after a restart of the server and its database, the workspace and its members are still there', async () => {
    const before = await server.db
      .select({ userId: memberships.userId, privilege: memberships.privilege })
      .from(memberships)
      .where(eq(memberships.workspaceId, story.workspaceId));
    expect(before).toHaveLength(3);
    const startedBefore = await postgresStartTime();

    await server.restart();
    // A new PostgreSQL process on the same data directory, not the old one still running.
    expect(await postgresStartTime()).not.toBe(startedBefore);

    // The owner signs in again in a fresh browser: the provider forgot its sessions, the e-mail gives the same account.
    const owner = await openBrowserFor();
    await owner.goto('/login');
    await signInWithGoogle(owner, OWNER);
    await expectInWorkspace(owner, story.workspaceId, WORKSPACE_NAME);
    await openMembersPage(owner);
    expect(await shownRole(owner, OWNER)).toBe('Owner');
    expect(await shownRole(owner, INVITED)).toBe('Manager');
    expect(await shownRole(owner, JOINER)).toBe('Viewer');
    expect((await memberEmails(owner)).sort()).toEqual([OWNER.email, INVITED.email, JOINER.email].sort());

    // The sign-in from before the restart is still good: its refresh token was in the database.
    const earlier = ownerPage();
    await earlier.reload();
    await waitForPath(earlier, `/workspace/${story.workspaceId}/settings/member`);
    expect(await shownRole(earlier, JOINER)).toBe('Viewer');

    const after = await server.db
      .select({ userId: memberships.userId, privilege: memberships.privilege })
      .from(memberships)
      .where(eq(memberships.workspaceId, story.workspaceId));
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after).toHaveLength(before.length);
  });
});
