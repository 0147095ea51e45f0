// The query editor's live status when the check answers the syntax but no store could count: "Preparing figures…"
// while the store prepares, the server's sentence when figures cannot be computed, and a time-out said as one.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { QueryStatus } from '@/components/query-editor/QueryStatus';
import type { QueryCheck } from '@/components/query-editor/use-query-check';
import { FIGURES_PREPARING_SHORT } from '@/components/FiguresWait';

const checkWith = (unavailable?: { error: string; message: string }): QueryCheck => ({
  checkedQuery: 'coffee',
  result: {
    valid: true,
    normalized: 'coffee',
    matches: null,
    matches_capped: false,
    ...(unavailable && { matches_unavailable: unavailable }),
  },
  errors: [],
  warnings: [],
  pending: false,
  failure: null,
  preparing: false,
  checkNow: () => {},
});

const statusOf = (check: QueryCheck) => {
  const { getByRole, unmount } = render(
    <QueryStatus id="status" check={check} query="coffee" scopeLabel="in the whole corpus" />,
  );
  const text = getByRole('status').textContent;
  unmount();
  return text;
};

describe('the query status without a count', () => {
  it('says the figures are being prepared', () => {
    expect(statusOf(checkWith({ error: 'figures_preparing', message: 'Rebuilding.' }))).toContain(
      FIGURES_PREPARING_SHORT,
    );
  });

  it("says the server's sentence when figures cannot be computed", () => {
    expect(statusOf(checkWith({ error: 'figures_unavailable', message: 'The store is off.' }))).toContain(
      'The store is off.',
    );
  });

  it('says a time-out as one', () => {
    expect(statusOf(checkWith())).toContain('Counting took too long');
  });
});

describe('the query status with warnings', () => {
  it('says each warning under the count, and its fix button hands the fix to the page', () => {
    const fix = { label: 'Write OR', column: 6, length: 2, text: 'OR' };
    const check: QueryCheck = {
      ...checkWith(),
      result: { valid: true, normalized: 'nova AND or AND nebula', matches: 3, matches_capped: false },
      warnings: [
        {
          code: 'lowercase_operator',
          message:
            '"or" at column 6 is searched as a word; write OR in capitals to combine the terms around it',
          column: 6,
          length: 2,
          fix,
        },
      ],
    };
    const fixes: unknown[] = [];
    const { getByRole } = render(
      <QueryStatus
        id="status"
        check={check}
        query="nova or nebula"
        scopeLabel="in the whole corpus"
        onFix={(given) => fixes.push(given)}
      />,
    );
    const list = getByRole('list', { name: 'Warnings' });
    expect(list.textContent).toContain('"or" at column 6 is searched as a word');
    getByRole('button', { name: 'Write OR' }).click();
    expect(fixes).toEqual([fix]);
  });
});
