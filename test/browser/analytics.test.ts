// The PageView analytics event of spec §4 step 5: once per navigation into a workspace page, never for a preload.
import { describe, expect, it } from 'vitest';
import { pageViews, signIn, type E2eWindow } from '@test/support/browser';
import { SEED, setupE2e, waitForHeading, waitForPath } from '@test/support/browser-harness';

const e2e = setupE2e();

describe('PageView analytics', () => {
  it('fires once per navigation and never for a hover preload', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    const savedQueries = `/workspace/${SEED.w1}/saved-queries`;
    const discover = `/workspace/${SEED.w1}/discover`;

    await page.goto(savedQueries);
    await waitForHeading(page, 'Saved queries');
    expect(
      (await pageViews(page)).map(({ type, path, workspaceId }) => ({ type, path, workspaceId })),
    ).toEqual([{ type: 'PageView', path: savedQueries, workspaceId: SEED.w1 }]);

    // Hovering a link preloads its route (defaultPreload 'intent'), which runs the workspace guard with preload.
    const discoverLink = page
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'Discover' });
    // Drop the cached workspace so the preloading guard goes all the way: load the workspace, check the plan.
    await page.evaluate(() =>
      (window as unknown as E2eWindow).__murmur.queryClient.removeQueries({ queryKey: ['workspaces'] }),
    );
    const guardLoad = page.waitForRequest((request) => request.url().endsWith(`/api/workspaces/${SEED.w1}`));
    const discoverChunk = page.waitForRequest((request) =>
      /\/assets\/discover-[^/]*\.js$/.test(request.url()),
    );
    await discoverLink.hover();
    await Promise.all([guardLoad, discoverChunk]);
    // The one short settle allowed: give a stray PageView from the preload time to arrive.
    await page.waitForTimeout(300);
    expect((await pageViews(page)).filter((event) => event.path === discover)).toEqual([]);
    expect(await pageViews(page)).toHaveLength(1);

    await discoverLink.click();
    await waitForPath(page, discover);
    await waitForHeading(page, 'Discover');
    const events = await pageViews(page);
    expect(events.map(({ path, workspaceId }) => ({ path, workspaceId }))).toEqual([
      { path: savedQueries, workspaceId: SEED.w1 },
      { path: discover, workspaceId: SEED.w1 },
    ]);

    // Back to saved queries through the sidebar: one more event, for that path.
    await page
      .getByRole('navigation', { name: 'Workspace' })
      .getByRole('link', { name: 'Saved queries' })
      .click();
    await waitForPath(page, savedQueries);
    await waitForHeading(page, 'Saved queries');
    expect((await pageViews(page)).map((event) => event.path)).toEqual([
      savedQueries,
      discover,
      savedQueries,
    ]);
  });

  it('is sent once, for the page shown, when a navigation passes through a redirecting route', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    const savedQueries = `/workspace/${SEED.w1}/saved-queries`;
    const overview = `/workspace/${SEED.w1}/insight/overview`;
    await page.goto(savedQueries);
    await waitForHeading(page, 'Saved queries');

    // The sidebar's 'Insights' link points at /workspace/{id}/insight, which redirects to insight/overview.
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Insights' }).click();
    await waitForPath(page, overview);
    await waitForHeading(page, 'Overview');
    expect((await pageViews(page)).map((event) => event.path)).toEqual([savedQueries, overview]);
  });

  it('is sent once for a visit of the workspace index, which redirects to saved-queries', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    await page.goto(`/workspace/${SEED.w1}`);
    await waitForPath(page, `/workspace/${SEED.w1}/saved-queries`);
    await waitForHeading(page, 'Saved queries');
    expect((await pageViews(page)).map((event) => event.path)).toEqual([
      `/workspace/${SEED.w1}/saved-queries`,
    ]);
  });

  it('is not sent for pages that skip the guard or when access is refused', async () => {
    const { page, backend } = e2e;
    await signIn(e2e.current.context, backend.issueTokens(SEED.alice));
    await page.goto(`/workspace/${SEED.other}/saved-queries`);
    await waitForPath(page, `/workspace/${SEED.other}/invalid-workspace`);
    await waitForHeading(page, 'This workspace is not available');
    expect(await pageViews(page)).toEqual([]);
  });
});
