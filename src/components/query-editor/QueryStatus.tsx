// What the live check says about the query as typed: its errors as text (the editor underlines them too), or how
// many posts it matches and any warnings with their one-click fixes, or that the figures (the count) are still being
// prepared.
import type { QueryWarning } from '@contract/social-query';
import type { QueryCheck } from './use-query-check';
import { apiProblem } from '@/api/errors';
import { FIGURES_PREPARING } from '@contract/figures';
import { FIGURES_PREPARING_SHORT } from '../FiguresWait';

const number = new Intl.NumberFormat();

export function QueryStatus({
  id,
  check,
  query,
  scopeLabel,
  onFix,
}: {
  id: string;
  check: QueryCheck;
  query: string;
  scopeLabel: string;
  /** Applies a warning's fix to the text (the page's draft); without it the warnings are said with no button. */
  onFix?: (fix: NonNullable<QueryWarning['fix']>) => void;
}) {
  const { result } = check;
  let content;
  if (query.trim() === '') {
    content = <span className="muted">Type a query to see how many posts it matches.</span>;
  } else if (check.preparing) {
    content = <span className="muted">{FIGURES_PREPARING_SHORT}</span>;
  } else if (check.failure && !result) {
    content = (
      <span className="field-error">Could not check the query. {apiProblem(check.failure).message}</span>
    );
  } else if (!result) {
    content = <span className="muted">Checking…</span>;
  } else if (!result.valid) {
    content = (
      <ul className="query-errors">
        {result.errors.map((error) => (
          <li key={`${error.column}:${error.message}`}>{error.message}</li>
        ))}
      </ul>
    );
  } else {
    const count =
      result.matches === null
        ? result.matches_unavailable
          ? result.matches_unavailable.error === FIGURES_PREPARING
            ? FIGURES_PREPARING_SHORT
            : result.matches_unavailable.message
          : 'Counting took too long'
        : result.matches_capped
          ? `More than ${number.format(result.matches)} posts match`
          : `${number.format(result.matches)} ${result.matches === 1 ? 'post matches' : 'posts match'}`;
    const warnings = check.warnings ?? [];
    content = (
      <>
        <span>
          <strong className="match-count">{count}</strong> <span className="muted">{scopeLabel}</span>
        </span>
        {warnings.length > 0 && (
          <ul className="query-warnings" aria-label="Warnings">
            {warnings.map((warning) => (
              <li key={`${warning.code}:${warning.column}`}>
                <span>{warning.message}</span>
                {warning.fix && onFix && (
                  <>
                    {' '}
                    <button type="button" className="link-button" onClick={() => onFix(warning.fix!)}>
                      {warning.fix.label}
                    </button>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </>
    );
  }
  return (
    <div
      id={id}
      className="query-status"
      role="status"
      aria-live="polite"
      aria-busy={check.pending || undefined}
      data-pending={check.pending || undefined}
    >
      {content}
    </div>
  );
}
