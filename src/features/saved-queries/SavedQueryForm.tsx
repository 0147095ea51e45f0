// Create or edit a saved query: name, query text (the query editor) and filters (platforms, languages), with a live
// preview beside the editor: the count over the checked platforms and languages in the last PREVIEW_DAYS days, and the
// newest matching posts. Save is refused while the live check says the query has errors (they are underlined in the
// editor and listed under it, each one selecting its span); a query the check has not answered yet goes to the server,
// whose 400 invalid_query is shown the same way. A taken name shows at the name field; leaving with unsaved changes
// asks first.
//
// Keyboard: Ctrl+Enter (⌘+Enter) in the editor checks the query and updates the preview at once; it never saves (a
// form whose text is typed over several lines would otherwise be saved by a slip). Save is the button, or Enter in the
// name field. Tab leaves the editor (it does not indent).
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useBlocker } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import type { SavedQuery, SavedQueryFilters } from '@contract/saved-queries';
import type { QueryError } from '@contract/social-query';
import {
  createSavedQuery,
  invalidQueryErrors,
  savedQueriesQuery,
  updateSavedQuery,
  type SavedQueryInput,
} from '@/api/saved-queries';
import { apiProblem } from '@/api/errors';
import { PlatformLanguageChoices } from '@/components/CheckboxGroup';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError, TextField } from '@/components/Field';
import { QueryEditor, type QueryEditorHandle } from '@/components/query-editor/QueryEditor';
import { QueryHelp } from '@/components/query-editor/QueryHelp';
import { QueryPreview } from '@/components/query-editor/QueryPreview';
import { applyQueryFix } from '@/components/query-editor/diagnostics';
import { NO_SUGGESTIONS, type QuerySuggestions } from '@/components/query-editor/query-completion';
import { useQueryCheck } from '@/components/query-editor/use-query-check';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import './saved-queries.css';

interface Draft {
  name: string;
  query: string;
  platforms: string[];
  languages: string[];
}

const draftOf = (query: SavedQuery | null): Draft => ({
  name: query?.name ?? '',
  query: query?.query ?? '',
  platforms: query?.filters.platforms ?? [],
  languages: query?.filters.languages ?? [],
});

const sameDraft = (a: Draft, b: Draft) =>
  a.name === b.name &&
  a.query === b.query &&
  [...a.platforms].sort().join() === [...b.platforms].sort().join() &&
  [...a.languages].sort().join() === [...b.languages].sort().join();

/** The preview's range: recent enough to say whether the query finds what it should. */
const PREVIEW_DAYS = 30;
const QUERY_ID = 'saved-query-text';
const QUERY_LABEL_ID = 'saved-query-text-label';

/** The errors a save was refused for, and the text they are about. */
interface Refusal {
  query: string;
  errors: readonly QueryError[];
}

export interface SavedQueryFormProps {
  workspaceId: string;
  /** The query being edited, or null for a new one. */
  editing: SavedQuery | null;
  /** Closes the form (after a save, or on Cancel: the blocker asks first when something changed). */
  onClose: () => void;
}

export function SavedQueryForm({ workspaceId, editing, onClose }: SavedQueryFormProps) {
  const { api, queryClient } = useApp();
  const [initial] = useState(() => draftOf(editing));
  const [draft, setDraft] = useState<Draft>(initial);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [nameError, setNameError] = useState<string>();
  const [formError, setFormError] = useState<string | null>(null);
  const [suggestions, setSuggestions] = useState<QuerySuggestions>(NO_SUGGESTIONS);
  const saved = useRef(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const editor = useRef<QueryEditorHandle>(null);
  const dirty = !sameDraft(draft, initial);

  const scope = useMemo(
    () => ({ days: PREVIEW_DAYS, platforms: draft.platforms, languages: draft.languages }),
    [draft.platforms, draft.languages],
  );
  const check = useQueryCheck(workspaceId, draft.query, scope);
  const scopeLabel = `in the last ${PREVIEW_DAYS} days${
    draft.platforms.length || draft.languages.length ? ', on the platforms and in the languages checked' : ''
  }`;
  // The errors of the text as typed: the live check's, or until it answers, those the server refused it for.
  const shownRefusal = refusal?.query === draft.query ? refusal : null;
  const queryErrors = check.errors ?? shownRefusal?.errors;

  useEffect(() => nameRef.current?.focus(), []);

  const blocker = useBlocker({
    shouldBlockFn: () => dirty && !saved.current,
    enableBeforeUnload: () => dirty && !saved.current,
    withResolver: true,
  });

  /**
   * Chosen in the refusal's list: focuses the editor with the caret where that error begins (the server counts 1-based
   * columns); nothing is selected, so what the person types next is inserted, never typed over their text.
   */
  const showError = useCallback((error: QueryError) => {
    editor.current?.placeCaret(error.column - 1);
  }, []);
  /**
   * A refused save: the errors are underlined in the editor and listed under it; the editor is focused with the caret
   * left where the person was typing, so their next keystrokes land there, not in front of the error.
   */
  const markRefused = useCallback(() => {
    editor.current?.focus();
  }, []);

  const save = useMutation({
    mutationFn: (input: SavedQueryInput) =>
      editing
        ? updateSavedQuery(api, workspaceId, editing.id, input)
        : createSavedQuery(api, workspaceId, input),
    onSuccess: async (query) => {
      saved.current = true;
      showToast('success', editing ? `Saved changes to “${query.name}”` : `Saved “${query.name}”`);
      await queryClient.invalidateQueries({ queryKey: savedQueriesQuery(api, workspaceId).queryKey });
      onClose();
    },
    onError: (error, input) => {
      const errors = invalidQueryErrors(error);
      if (errors) {
        setRefusal({ query: input.query, errors });
        if (errors[0]) markRefused();
        return;
      }
      const problem = apiProblem(error);
      if (problem.code === 'name_taken') setNameError(problem.message);
      else if (problem.fields.name) setNameError(problem.fields.name);
      else setFormError(problem.message);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const name = draft.name.trim();
    const nameMissing = !name;
    setNameError(nameMissing ? 'Give the query a name.' : undefined);
    // Refused while the check says the text has errors; not yet checked, the server decides (400 invalid_query).
    const errors = queryErrors?.length ? queryErrors : null;
    setRefusal(errors ? { query: draft.query, errors } : null);
    if (nameMissing) {
      nameRef.current?.focus();
      return;
    }
    if (errors) {
      markRefused();
      return;
    }
    // The stored date range, if any, is kept: filters replace the stored ones as a whole.
    const kept: SavedQueryFilters = { ...editing?.filters };
    delete kept.platforms;
    delete kept.languages;
    const filters: SavedQueryFilters = {
      ...kept,
      ...(draft.platforms.length ? { platforms: draft.platforms as SavedQueryFilters['platforms'] } : {}),
      ...(draft.languages.length ? { languages: draft.languages } : {}),
    };
    save.mutate({ name, query: draft.query, filters });
  };

  const title = editing ? `Edit “${editing.name}”` : 'New saved query';
  return (
    <section className="saved-query-form" aria-labelledby="saved-query-form-title">
      <h2 id="saved-query-form-title">{title}</h2>
      <form className="form saved-query-layout" onSubmit={submit} noValidate>
        <div className="saved-query-name">
          <TextField
            ref={nameRef}
            label="Name"
            value={draft.name}
            maxLength={100}
            onChange={(name) => {
              setDraft((d) => ({ ...d, name }));
              setNameError(undefined);
            }}
            error={nameError}
            autoComplete="off"
          />
        </div>
        <div className="field query-field saved-query-text">
          {/* The editor is not a form control: the label names it and focuses it when clicked (QueryEditor). */}
          <label id={QUERY_LABEL_ID} className="query-label">
            Query
          </label>
          <p className="field-hint">
            Words, "exact phrases", wildcards (barist*, organi?ation), {'{NASA}'} (exact case), AND, OR, NOT,
            parentheses, a NEAR/3 b (NEAR/3f: in order), #hashtag, @mention, author:, platform:, lang:,
            country:, is:, followers:[1000 TO *], engagement:[10 TO *], site:, instance:, subreddit:, source:,
            the workspace's lists (list(name), author:list(name), site:list(name)); &lt;&lt;&lt; comments
            &gt;&gt;&gt;.
          </p>
          <QueryEditor
            id={QUERY_ID}
            ariaLabelledBy={QUERY_LABEL_ID}
            ariaDescription="Errors and the count follow in the preview as you type; Ctrl+Enter updates it at once and does not save."
            value={draft.query}
            onChange={(query) => setDraft((d) => ({ ...d, query }))}
            errors={queryErrors}
            warnings={check.warnings}
            suggestions={suggestions}
            onSubmit={check.checkNow}
            handle={editor}
          />
          <ListsRead workspaceId={workspaceId} query={draft.query} />
          {shownRefusal ? (
            <div id={`${QUERY_ID}-errors`} className="query-refusal" role="alert">
              <p className="field-error">
                {shownRefusal.errors.length === 1
                  ? 'Not saved: the query has an error. Fix it to save.'
                  : 'Not saved: the query has errors. Fix them to save.'}
              </p>
              <ul className="query-errors">
                {shownRefusal.errors.map((error, i) => (
                  <li key={`${error.column}-${i}`}>
                    <button
                      type="button"
                      className="link-button field-error"
                      onClick={() => showError(error)}
                    >
                      {error.message}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <QueryHelp modEnter="checks the query and updates the preview at once (it does not save)" />
        </div>
        <QueryPreview
          id="saved-query-preview"
          workspaceId={workspaceId}
          query={draft.query}
          scope={scope}
          scopeLabel={scopeLabel}
          check={check}
          onSuggestions={setSuggestions}
          onFix={(fix) => setDraft((d) => ({ ...d, query: applyQueryFix(d.query, fix) }))}
        />
        <div className="saved-query-filters">
          <PlatformLanguageChoices
            platforms={draft.platforms}
            languages={draft.languages}
            onPlatforms={(platforms) => setDraft((d) => ({ ...d, platforms }))}
            onLanguages={(languages) => setDraft((d) => ({ ...d, languages }))}
          />
        </div>
        <div className="saved-query-footer">
          <FormError message={formError} />
          <div className="form-actions">
            <button
              type="submit"
              className="button primary"
              disabled={save.isPending}
              aria-busy={save.isPending}
            >
              {save.isPending ? 'Saving…' : editing ? 'Save changes' : 'Save query'}
            </button>
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </div>
      </form>
      {blocker.status === 'blocked' ? (
        <ConfirmDialog
          title="Discard unsaved changes?"
          confirmLabel="Discard"
          destructive
          onConfirm={() => blocker.proceed()}
          onCancel={() => blocker.reset()}
        >
          {editing ? `Your changes to “${editing.name}” are not saved.` : 'This query is not saved yet.'}
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** A list reference as the language reads it (server/query/lexer.ts): an optional field, `list(name)`. */
const LIST_REFERENCE = /(?:^|[\s(])(?:[A-Za-z]+:)?list\(([a-z0-9_-]{1,40})\)/gi;

/** Which of the workspace's lists the typed query reads, as it is typed. */
function ListsRead({ workspaceId, query }: { workspaceId: string; query: string }) {
  const names = [...new Set(Array.from(query.matchAll(LIST_REFERENCE), (match) => match[1]!))];
  if (!names.length) return null;
  return (
    <p className="field-hint query-lists-read">
      Reads {names.length === 1 ? 'the list' : 'the lists'}{' '}
      <Link to="/workspace/$workspaceId/settings/lists" params={{ workspaceId }}>
        {names.join(', ')}
      </Link>{' '}
      as they are when it runs: editing a list changes this query.
    </p>
  );
}
