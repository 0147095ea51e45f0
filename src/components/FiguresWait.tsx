// What a page says while its figures are prepared (a 503 figures_preparing, asked again after its Retry-After by the
// query's retry rule, src/api/errors.ts): a polite status with the progress in words and, when its percent is known,
// a progress bar. Small widgets (a sparkline, a count) say the short words instead.
import { figuresWaitText, type FiguresWait as Wait } from '@contract/figures';

export function FiguresWait({ wait, asking = true }: { wait: Wait; asking?: boolean }) {
  const percent = wait.progress?.percent ?? null;
  // The server's sentence says the progress too: it is said here only when there is no progress to word.
  const notes = [
    wait.progress ? (asking ? 'This page shows the figures as soon as they are ready.' : null) : wait.message,
    asking ? null : 'This page stopped asking: reload it to ask again.',
  ].filter(Boolean);
  return (
    <div className="notice figures-wait" role="status" aria-live="polite">
      <p className="figures-wait-line">
        {asking ? <span className="spinner" aria-hidden="true" /> : null}
        {figuresWaitText(wait.progress)}
      </p>
      {percent !== null ? (
        <progress max={100} value={percent} aria-label="Figures prepared">
          {percent} %
        </progress>
      ) : null}
      {notes.length ? <p className="small muted">{notes.join(' ')}</p> : null}
    </div>
  );
}

/** The short words of a small widget while the figures are prepared. */
export const FIGURES_PREPARING_SHORT = figuresWaitText(null);
