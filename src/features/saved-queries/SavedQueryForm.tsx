// Create or edit a saved query: name, query text and filters (platforms, languages). A query that does not parse
// comes back as 400 invalid_query and is shown at its positions with the form kept as typed; a taken name at the
// name field; leaving with unsaved changes asks first.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useBlocker } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import type { SavedQuery, SavedQueryFilters } from '../../contract/saved-queries';
import type { QueryError } from '../../contract/social-query';
import { PLATFORM_VALUES } from '../../contract/social-scope';
import { workspaceLanguages } from '../../contract/workspaces';
import {
  createSavedQuery,
  invalidQueryErrors,
  savedQueriesQuery,
  updateSavedQuery,
  type SavedQueryInput,
} from '../../api/saved-queries';
import { apiProblem } from '../../api/workspaces';
import { CheckboxGroup } from '../../components/CheckboxGroup';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { FormError, TextField } from '../../components/Field';
import { useApp } from '../../components/use-app';
import { languageLabel } from '../../lib/languages';
import { platformName } from '../../lib/platforms';
import { showToast } from '../../lib/toast';
import { QueryInput } from './QueryInput';

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
  const [queryErrors, setQueryErrors] = useState<QueryError[]>([]);
  const [nameError, setNameError] = useState<string>();
  const [formError, setFormError] = useState<string | null>(null);
  const saved = useRef(false);
  const hintId = useId();
  const nameRef = useRef<HTMLInputElement>(null);
  const dirty = !sameDraft(draft, initial);

  useEffect(() => nameRef.current?.focus(), []);

  const blocker = useBlocker({
    shouldBlockFn: () => dirty && !saved.current,
    enableBeforeUnload: () => dirty && !saved.current,
    withResolver: true,
  });

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
    onError: (error) => {
      const errors = invalidQueryErrors(error);
      if (errors) {
        setQueryErrors(errors);
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
    setNameError(undefined);
    setQueryErrors([]);
    const name = draft.name.trim();
    if (!name) {
      setNameError('Give the query a name.');
      nameRef.current?.focus();
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
      <form className="form wide" onSubmit={submit} noValidate>
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
        <div className="field">
          <label htmlFor="saved-query-text">Query</label>
          <p id={hintId} className="field-hint">
            Words, "exact phrases", wildcards (barist*), AND, OR, NOT, parentheses, a NEAR/3 b, #hashtag,
            @mention, author:, platform:, lang:, country:.
          </p>
          <QueryInput
            id="saved-query-text"
            value={draft.query}
            onChange={(query) => {
              setDraft((d) => ({ ...d, query }));
              // The columns no longer point at the same text.
              setQueryErrors([]);
            }}
            errors={queryErrors}
            aria-describedby={hintId}
          />
        </div>
        <CheckboxGroup
          legend="Platforms"
          hint="None checked: every platform."
          options={PLATFORM_VALUES.map((platform) => ({ value: platform, label: platformName(platform) }))}
          selected={draft.platforms}
          onChange={(platforms) => setDraft((d) => ({ ...d, platforms }))}
        />
        <CheckboxGroup
          legend="Languages"
          hint="None checked: every language."
          options={workspaceLanguages.map((language) => ({
            value: language,
            label: languageLabel(language),
          }))}
          selected={draft.languages}
          onChange={(languages) => setDraft((d) => ({ ...d, languages }))}
        />
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
