// What the query editor takes and what it lends a page: shared by the stand-in (QueryEditor.tsx) and the editor it
// loads on demand (CodeMirrorQueryEditor.tsx).
import type { Ref } from 'react';
import type { QuerySuggestions } from './query-completion';
import type { QueryError, QueryWarning } from '@contract/social-query';

/** What a page may ask of the editor once it is loaded (before, the calls do nothing). */
export interface QueryEditorHandle {
  /**
   * Focuses the editor and leaves its caret and selection where the person left them: a refused save marks the error
   * (underlined) without moving the caret, so what they type next lands where they were typing.
   */
  focus(): void;
  /**
   * Focuses the editor with the caret at `at` (a 0-based UTF-16 offset, clamped). Nothing is selected: text the person
   * did not select would be replaced by their next keystroke, changing the query without a word.
   */
  placeCaret(at: number): void;
}

export interface QueryEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The server's errors for exactly `value`; undefined while the check of the current text is pending. */
  errors?: readonly QueryError[] | undefined;
  /** The server's warnings for exactly `value` (underlined as warnings, their fix an action); undefined while pending. */
  warnings?: readonly QueryWarning[] | undefined;
  /** The id of the editable element (for tests and in-page links). */
  id: string;
  /** The label's id: its text names the editor (copied, as the editor is in a shadow root), a click focuses it. */
  ariaLabelledBy: string;
  /** A sentence read after the name (aria-description), e.g. how to run the search. */
  ariaDescription?: string;
  /** Ctrl+Enter / Cmd+Enter. */
  onSubmit?: () => void;
  /** Hashtags, mentions, authors and countries to complete (e.g. from the posts on screen). */
  suggestions?: QuerySuggestions;
  placeholderText?: string;
  /** Filled with the editor's QueryEditorHandle once it is loaded. */
  handle?: Ref<QueryEditorHandle>;
}
