// axe-core's accessibility check of a page as the browser tests drew it.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

const axeSource = axe.source;

/** axe-core's violations on the page as drawn (run through the DevTools protocol: the page's CSP stays on). */
export async function axeViolations(page: Page) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}
