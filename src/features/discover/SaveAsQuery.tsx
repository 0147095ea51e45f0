// "Save as query": the search's query and its platform and language filters become a saved query (owners and
// managers; viewers see the button disabled and why). The date range is not saved: dashboards choose their own.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { Privilege } from '@contract/workspaces';
import { createSavedQuery, invalidQueryErrors, savedQueriesQuery } from '@/api/saved-queries';
import { apiProblem } from '@/api/errors';
import type { QueryCheck } from '@/components/query-editor/use-query-check';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import type { DiscoverState } from './discover-search';

const canSave = (privilege: Privilege) => privilege === 'owner' || privilege === 'manager';

export function SaveAsQuery({
  workspaceId,
  privilege,
  search,
  draft,
  check,
}: {
  workspaceId: string;
  privilege: Privilege;
  search: DiscoverState;
  draft: string;
  check: QueryCheck;
}) {
  const reasonId = useId();
  const [open, setOpen] = useState(false);
  const allowed = canSave(privilege);
  const reason = !allowed
    ? 'Only owners and managers can save queries.'
    : draft.trim() === ''
      ? 'Type a query to save it.'
      : check.errors?.length
        ? 'Fix the query’s errors to save it.'
        : null;
  return (
    <div className="save-as-query">
      <button
        type="button"
        className="button primary"
        disabled={reason !== null}
        aria-describedby={reason ? reasonId : undefined}
        onClick={() => setOpen(true)}
      >
        Save as query
      </button>
      {reason ? (
        <p id={reasonId} className="small muted">
          {reason}
        </p>
      ) : null}
      {open ? (
        <SaveDialog
          workspaceId={workspaceId}
          search={{ ...search, query: draft }}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </div>
  );
}

function SaveDialog({
  workspaceId,
  search,
  onClose,
}: {
  workspaceId: string;
  search: DiscoverState;
  onClose: () => void;
}) {
  const { api, queryClient } = useApp();
  const titleId = useId();
  const nameId = useId();
  const [name, setName] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    input.current?.focus();
    return () => previous?.focus();
  }, []);

  const save = useMutation({
    mutationFn: () =>
      createSavedQuery(api, workspaceId, {
        name: name.trim(),
        query: search.query,
        filters: {
          ...(search.platforms.length ? { platforms: search.platforms } : {}),
          ...(search.languages.length ? { languages: search.languages } : {}),
        },
      }),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: savedQueriesQuery(api, workspaceId).queryKey });
      showToast('success', `Saved “${saved.name}”`);
      onClose();
    },
  });

  const problem = save.isError ? apiProblem(save.error) : null;
  const queryErrors = save.isError ? invalidQueryErrors(save.error) : null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) save.mutate();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && !save.isPending) onClose();
  };

  return (
    <div className="dialog-backdrop">
      <form
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onSubmit={submit}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId}>Save as query</h2>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input
            ref={input}
            id={nameId}
            className="input"
            value={name}
            maxLength={100}
            required
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <p className="dialog-body small">
          Saves <code>{search.query}</code>
          {search.platforms.length ? ` on ${search.platforms.join(', ')}` : ''}
          {search.languages.length ? ` in ${search.languages.join(', ')}` : ''}. The date range is not saved:
          dashboards choose their own.
        </p>
        {problem ? (
          <div className="form-error" role="alert">
            <p>{problem.message}</p>
            {queryErrors?.length ? (
              <ul>
                {queryErrors.map((error) => (
                  <li key={`${error.column}:${error.message}`}>{error.message}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={save.isPending || !name.trim()}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </div>
  );
}
