// The validate endpoint's errors and warnings as CodeMirror diagnostics; a warning's fix is its action.
import type { Diagnostic } from '@codemirror/lint';
import type { QueryError, QueryWarning } from '@contract/social-query';

type Fix = NonNullable<QueryWarning['fix']>;

/** `text` with a warning's fix applied: `length` characters at the 1-based `column` replaced (clamped to the text). */
export function applyQueryFix(text: string, fix: Fix): string {
  const from = Math.min(Math.max(fix.column - 1, 0), text.length);
  return text.slice(0, from) + fix.text + text.slice(Math.min(from + fix.length, text.length));
}

/** The server counts 1-based UTF-16 columns, as CodeMirror counts offsets (0-based): shift and clamp to the text. */
export function toDiagnostics(
  errors: readonly QueryError[],
  length: number,
  warnings: readonly QueryWarning[] = [],
): Diagnostic[] {
  const span = (at: { column: number; length: number }) => {
    const from = Math.min(Math.max(at.column - 1, 0), length);
    return { from, to: Math.min(from + at.length, length) };
  };
  return [
    ...errors.map((error): Diagnostic => ({ ...span(error), severity: 'error', message: error.message })),
    ...warnings.map((warning): Diagnostic => ({
      ...span(warning),
      severity: 'warning',
      message: warning.message,
      ...(warning.fix ? { actions: [fixAction(warning.fix)] } : {}),
    })),
  ];
}

function fixAction(fix: Fix): NonNullable<Diagnostic['actions']>[number] {
  return {
    name: fix.label,
    apply(view) {
      const text = view.state.doc.toString();
      view.dispatch({ changes: { from: 0, to: text.length, insert: applyQueryFix(text, fix) } });
    },
  };
}
