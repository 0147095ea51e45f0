// Routes of spec §2 and the route guards of §4, end to end: real SPA build, real Chromium, fake backend.
import { describe, expect, it } from 'vitest';
import {
  AUTH_TOKENS_KEY,
  lastWorkspaceKey,
  readStorage,
  signIn,
  seedStorage,
  trackPaths,
} from '@test/support/browser';
import { SEED, setupE2e, waitForHeading, waitForPath } from '@test/support/browser-harness';

const e2e = setupE2e();

async function signInAs(userId: string, options: Parameters<typeof signIn>[2] = {}) {
  const tokens = e2e.backend.issueTokens(userId);
  await signIn(e2e.current.context, tokens, options);
  return tokens;
}

async function expectToast(text: string) {
  await e2e.page.getByRole('alert').filter({ hasText: text }).first().waitFor({ state: 'visible' });
}

describe('signed out', () => {
  it('/ redirects to /login and shows the login screen', async () => {
    const { page } = e2e;
    await page.goto('/');
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
  });

  it("/invite without a token shows 'Invalid invite token' and goes to /login", async () => {
    const { page } = e2e;
    await page.goto('/invite');
    await expectToast('Invalid invite token');
    await waitForPath(page, '/login');
    expect(new URL(page.url()).search).toBe('');
  });

  it("/invite?token=abc shows 'Login required' and goes to /login carrying the token", async () => {
    const { page } = e2e;
    await page.goto('/invite?token=abc');
    await expectToast('Login required');
    await waitForPath(page, '/login?token=abc');
    await waitForHeading(page, 'Sign in to Murmur');
    expect(e2e.backend.calls('POST /api/user/me/invite')).toBe(0);
  });

  it('a workspace page goes to /login', async () => {
    const { page } = e2e;
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
  });

  it('a corrupted auth_tokens entry shows the login screen and is removed', async () => {
    const { page } = e2e;
    await seedStorage(e2e.current.context, { [AUTH_TOKENS_KEY]: '{"access_token":1}' });
    await page.goto(`/workspace/${SEED.w1}/saved-queries`);
    await waitForPath(page, '/login');
    await waitForHeading(page, 'Sign in to Murmur');
    expect(await readStorage(page, AUTH_TOKENS_KEY)).toBeNull();
  });

  it("an unknown route shows 'Not Found'", async () => {
    const { page } = e2e;
    await page.goto('/no/such/page');
    await waitForHeading(page, 'Not Found');
    await waitForPath(page, '/no/such/page');
  });
});

describe('invites, signed in', () => {
  it('/invite?token=<valid> goes to the invited workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/invite?token=${SEED.goodInvite}`);
    await waitForPath(page, `/workspace/${SEED.w3}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    expect(e2e.backend.calls('POST /api/user/me/invite')).toBe(1);
  });

  it("/invite?token=<invalid> shows 'Invalid invite token' and goes to /login", async () => {
    const { page } = e2e;
    const visited = trackPaths(page);
    await signInAs(SEED.alice);
    await page.goto('/invite?token=bad');
    await expectToast('Invalid invite token');
    // The invite route sends the user to /login (without the token). For a signed-in user /login itself then
    // moves on to the last-used or first workspace (spec §2, /login/ row), so that is where the browser ends.
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
    expect(visited).toContain('/login');
    expect(visited).not.toContain(`/login?token=bad`);
    expect(e2e.backend.calls('POST /api/user/me/invite')).toBe(1);
  });

  it('/login?token=<valid> goes to the invited workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/login?token=${SEED.goodInvite}`);
    await waitForPath(page, `/workspace/${SEED.w3}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
  });

  it("/login?token=<invalid> stays on /login with 'Invalid invite token'", async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto('/login?token=bad');
    await expectToast('Invalid invite token');
    await waitForHeading(page, 'Sign in to Murmur');
    await waitForPath(page, '/login?token=bad');
  });
});

describe('/login signed in, without a token', () => {
  it('goes to the last-used workspace while the user still belongs to it', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice, { lastWorkspace: { userId: SEED.alice, workspaceId: SEED.w2 } });
    await page.goto('/login');
    await waitForPath(page, `/workspace/${SEED.w2}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
  });

  it('goes to the first workspace when the last-used one is no longer theirs', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice, { lastWorkspace: { userId: SEED.alice, workspaceId: SEED.other } });
    await page.goto('/login');
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
  });

  it('goes to the first workspace when none was used yet', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto('/login');
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
  });

  it('goes to /workspace/create/name for a user without workspaces', async () => {
    const { page } = e2e;
    await signInAs(SEED.carol);
    await page.goto('/login');
    await waitForPath(page, '/workspace/create/name');
    await waitForHeading(page, 'Name your workspace');
  });
});

describe('workspace routes, signed in', () => {
  it('remembers the visited workspace as the last-used one', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.w2}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    expect(await readStorage(page, lastWorkspaceKey(SEED.alice))).toBe(SEED.w2);
  });

  it('sends an owner of an expired plan to plan-required', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.expired}/saved-queries`);
    await waitForPath(page, `/workspace/${SEED.expired}/plan-required`);
    await waitForHeading(page, 'Your plan has expired');
  });

  it('sends a viewer of an expired plan to invalid-workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.bob);
    await page.goto(`/workspace/${SEED.expired}/saved-queries`);
    await waitForPath(page, `/workspace/${SEED.expired}/invalid-workspace`);
    await waitForHeading(page, 'This workspace is not available');
  });

  it('sends a non-member to invalid-workspace', async () => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(`/workspace/${SEED.other}/saved-queries`);
    await waitForPath(page, `/workspace/${SEED.other}/invalid-workspace`);
    await waitForHeading(page, 'This workspace is not available');
  });

  it('sends the internal workspace id to /scraping', async () => {
    const { page } = e2e;
    await signInAs(SEED.staff);
    await page.goto('/workspace/internal');
    await waitForPath(page, '/scraping');
    await waitForHeading(page, 'Scraping');
    expect(e2e.backend.calls('GET /api/workspaces/internal')).toBe(0);
  });

  it('sends the internal workspace id to /scraping, which turns away someone who is not staff', async () => {
    const { page } = e2e;
    const visited = trackPaths(page);
    await signInAs(SEED.alice);
    await page.goto('/workspace/internal');
    await expectToast('The scraping area is for Murmur staff only.');
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
    expect(visited).toContain('/scraping');
    expect(e2e.backend.calls('GET /api/workspaces/internal')).toBe(0);
  });

  it.each([
    [`/workspace/${SEED.w1}`, `/workspace/${SEED.w1}/saved-queries`, 'Saved queries'],
    [`/workspace/${SEED.w1}/settings`, `/workspace/${SEED.w1}/settings/general`, 'General'],
    [`/workspace/${SEED.w1}/insight`, `/workspace/${SEED.w1}/insight/overview`, 'Overview'],
  ])('redirects %s to %s', async (from, to, heading) => {
    const { page } = e2e;
    await signInAs(SEED.alice);
    await page.goto(from);
    await waitForPath(page, to);
    await waitForHeading(page, heading);
  });
});
