// The validate endpoint's errors as CodeMirror diagnostics.
import type { Diagnostic } from '@codemirror/lint';
import type { QueryError } from '@contract/social-query';

/** The server counts 1-based UTF-16 columns, as CodeMirror counts offsets (0-based): shift and clamp to the text. */
export function toDiagnostics(errors: readonly QueryError[], length: number): Diagnostic[] {
  return errors.map((error) => {
    const from = Math.min(Math.max(error.column - 1, 0), length);
    return { from, to: Math.min(from + error.length, length), severity: 'error', message: error.message };
  });
}
