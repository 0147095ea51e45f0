// Settings › Lists: the workspace's named lists of authors, sites or words, which a query reads by name
// (`author:list(competitors)`, `site:list(press)`, `list(misspellings)`). Every member sees them and which saved
// queries read each; owners and managers create them, edit their items (one a line) and delete those no saved query
// reads. Editing a list changes every query that reads it the next time it is evaluated.
import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LIST_KINDS, MAX_LIST_ITEMS, type QueryListResponse } from '@contract/lists';
import { apiProblem } from '@/api/errors';
import { createList, deleteList, listsQuery, replaceListItems, type ListBody } from '@/api/lists';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError, TextField } from '@/components/Field';
import { EmptyState, PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { canManageMembers } from './member-rules';
import { useWorkspace } from './use-workspace';
import './lists.css';

const KIND_LABEL: Record<ListBody['kind'], string> = {
  authors: 'Authors',
  sites: 'Sites',
  words: 'Words and phrases',
};

/** How a query reads a list of this kind. */
const listReference = (kind: ListBody['kind'], name: string) =>
  `${kind === 'authors' ? 'author:' : kind === 'sites' ? 'site:' : ''}list(${name})`;

const ITEM_HINT: Record<ListBody['kind'], string> = {
  authors: 'One handle a line, as in author: (alice or @alice).',
  sites: 'One domain or address a line (bbc.co.uk, https://www.nytimes.com/…).',
  words: 'One word or phrase a line; a line of several words is a phrase.',
};

/** The textarea's lines as items: trimmed, blank lines left out. */
const itemsOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

export function ListsPage() {
  const { workspace, workspaceId } = useWorkspace();
  const { api } = useApp();
  const lists = useQuery(listsQuery(api, workspaceId));
  const canEdit = canManageMembers(workspace.privilege);
  return (
    <PageFrame
      title="Lists"
      description="Named lists of authors, sites or words that queries read by name: author:list(competitors), site:list(press), list(misspellings). Editing a list changes every query that reads it."
    >
      {canEdit ? <CreateListForm workspaceId={workspaceId} /> : null}
      {lists.isError ? <FormError message={apiProblem(lists.error).message} /> : null}
      {lists.data ? (
        lists.data.lists.length ? (
          <ul className="query-lists" aria-label="The workspace's lists">
            {lists.data.lists.map((list) => (
              <li key={list.name}>
                <ListEditor workspaceId={workspaceId} list={list} canEdit={canEdit} />
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState title="No lists yet">
            {canEdit
              ? 'Create one above, then read it in a query.'
              : 'Owners and managers create lists; queries then read them by name.'}
          </EmptyState>
        )
      ) : lists.isError ? null : (
        <Pending label="Loading lists…" />
      )}
    </PageFrame>
  );
}

function CreateListForm({ workspaceId }: { workspaceId: string }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const kindId = useId();
  const itemsId = useId();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ListBody['kind']>('words');
  const [items, setItems] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: ListBody) => createList(api, workspaceId, body),
    onSuccess: async (created) => {
      setName('');
      setItems('');
      setError(null);
      showToast(
        'success',
        `List ${created.name} created: read it as ${listReference(created.kind, created.name)}`,
      );
      await queryClient.invalidateQueries({ queryKey: listsQuery(api, workspaceId).queryKey });
    },
    onError: (failure) => setError(apiProblem(failure).message),
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    if (!/^[a-z0-9_-]{1,40}$/.test(name)) {
      setError('Name the list with 1 to 40 lower-case letters, digits, _ or -.');
      return;
    }
    const lines = itemsOf(items);
    if (!lines.length || lines.length > MAX_LIST_ITEMS) {
      setError(`A list holds 1 to ${MAX_LIST_ITEMS.toLocaleString('en')} items, one a line.`);
      return;
    }
    create.mutate({ name, kind, items: lines });
  };
  return (
    <form
      className="form query-list-create"
      onSubmit={onSubmit}
      noValidate
      aria-busy={create.isPending || undefined}
    >
      <h2>New list</h2>
      <TextField
        label="Name"
        hint="Lower-case letters, digits, _ and -: how a query names it."
        value={name}
        onChange={setName}
        autoComplete="off"
        spellCheck={false}
      />
      <div className="field">
        <label htmlFor={kindId}>Kind</label>
        <select
          id={kindId}
          className="input"
          value={kind}
          onChange={(event) => setKind(event.target.value as ListBody['kind'])}
        >
          {LIST_KINDS.map((option) => (
            <option key={option} value={option}>
              {KIND_LABEL[option]} — {listReference(option, name || 'name')}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={itemsId}>Items</label>
        <p id={`${itemsId}-hint`} className="field-hint">
          {ITEM_HINT[kind]}
        </p>
        <textarea
          id={itemsId}
          className="input"
          rows={5}
          value={items}
          onChange={(event) => setItems(event.target.value)}
          aria-describedby={`${itemsId}-hint`}
          spellCheck={false}
        />
      </div>
      <FormError message={error} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create list'}
        </button>
      </div>
    </form>
  );
}

function ListEditor({
  workspaceId,
  list,
  canEdit,
}: {
  workspaceId: string;
  list: QueryListResponse;
  canEdit: boolean;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const itemsId = useId();
  const [items, setItems] = useState(list.items.join('\n'));
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: listsQuery(api, workspaceId).queryKey });
  const save = useMutation({
    mutationFn: (lines: string[]) => replaceListItems(api, workspaceId, list.name, lines),
    onSuccess: async (saved) => {
      setItems(saved.items.join('\n'));
      setError(null);
      showToast('success', `List ${list.name} saved: the queries that read it read these items now`);
      await refresh();
    },
    onError: (failure) => setError(apiProblem(failure).message),
  });
  const remove = useMutation({
    mutationFn: () => deleteList(api, workspaceId, list.name),
    onSuccess: async () => {
      setDeleting(false);
      showToast('success', `List ${list.name} deleted`);
      await refresh();
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const lines = itemsOf(items);
    if (!lines.length || lines.length > MAX_LIST_ITEMS) {
      setError(`A list holds 1 to ${MAX_LIST_ITEMS.toLocaleString('en')} items, one a line.`);
      return;
    }
    save.mutate(lines);
  };
  const headingId = `${itemsId}-heading`;
  return (
    <section className="card query-list" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <code>{listReference(list.kind, list.name)}</code>
      </h2>
      <p className="small muted">
        {KIND_LABEL[list.kind]} · {list.items.length} {list.items.length === 1 ? 'item' : 'items'} ·{' '}
        {list.used_by.length ? `Read by ${list.used_by.join(', ')}` : 'No saved query reads it'}
      </p>
      {canEdit ? (
        <form className="form" onSubmit={onSubmit} noValidate aria-busy={save.isPending || undefined}>
          <div className="field">
            <label htmlFor={itemsId}>Items of {list.name}, one a line</label>
            <p id={`${itemsId}-hint`} className="field-hint">
              {ITEM_HINT[list.kind]}
            </p>
            <textarea
              id={itemsId}
              className="input"
              rows={Math.min(12, Math.max(3, list.items.length + 1))}
              value={items}
              onChange={(event) => setItems(event.target.value)}
              aria-describedby={`${itemsId}-hint`}
              spellCheck={false}
            />
          </div>
          <FormError message={error} />
          <div className="form-actions">
            <button type="submit" className="button primary" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : `Save ${list.name}`}
            </button>
            <button type="button" className="button danger-text" onClick={() => setDeleting(true)}>
              Delete {list.name}
            </button>
          </div>
        </form>
      ) : (
        <ul className="query-list-items" aria-label={`Items of ${list.name}`}>
          {list.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the list ${list.name}?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate()}
          onCancel={() => setDeleting(false)}
        >
          Queries can no longer read it. A list a saved query or a tag's rule reads cannot be deleted: change
          those queries first.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
