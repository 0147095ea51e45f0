// One tag on Settings › Categories: how many posts carry it, its rules (each a query; "tagging past posts…" while it is
// applied to the posts stored before it), and for owners and managers a field to add a rule, a button to delete each
// rule (posts lose the tag where only that rule set it) and one to delete the tag.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TagResponse } from '@contract/tags';
import { apiProblem } from '@/api/errors';
import { createRule, deleteRule, deleteTag, renameTag, tagCategoriesQuery, tagCountsQuery } from '@/api/tags';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError, TextField } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { RenameControl } from './RenameControl';

export function TagRow({
  workspaceId,
  tag,
  canEdit,
}: {
  workspaceId: string;
  tag: TagResponse;
  canEdit: boolean;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const [query, setQuery] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  // The page's observer refreshes them (CategoriesPage); here they are only read.
  const counts = useQuery({ ...tagCountsQuery(api, workspaceId), enabled: false });
  const posts = counts.data?.tags.find((count) => count.tag_id === tag.id)?.posts;
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey });
  const addRule = useMutation({
    mutationFn: (text: string) => createRule(api, workspaceId, tag.id, text),
    onSuccess: async () => {
      setQuery('');
      setError(null);
      showToast('success', `Rule added: past posts it matches are being tagged ${tag.name}`);
      await refresh();
    },
    onError: (failure) => setError(apiProblem(failure).message),
  });
  const removeRule = useMutation({
    mutationFn: (ruleId: string) => deleteRule(api, workspaceId, ruleId),
    onSuccess: async () => {
      showToast('success', `Rule deleted: posts only it tagged ${tag.name} no longer carry the tag`);
      await refresh();
    },
    onError: (failure) => showToast('error', apiProblem(failure).message),
  });
  const remove = useMutation({
    mutationFn: () => deleteTag(api, workspaceId, tag.id),
    onSuccess: async () => {
      setDeleting(false);
      showToast('success', `Tag ${tag.name} deleted`);
      await refresh();
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (addRule.isPending) return;
    if (!query.trim()) {
      setError('Write the query whose matches carry the tag.');
      return;
    }
    addRule.mutate(query);
  };
  return (
    <div className="tag-row">
      <h3>
        {tag.name}{' '}
        {posts === undefined ? (
          counts.failureReason ? null : (
            <span className="small muted">· counting posts…</span>
          )
        ) : (
          <span className="small muted">
            · {posts.toLocaleString('en')} {posts === 1 ? 'post' : 'posts'}
          </span>
        )}
      </h3>
      {canEdit ? (
        <RenameControl
          workspaceId={workspaceId}
          what="tag"
          name={tag.name}
          rename={(name) => renameTag(api, workspaceId, tag.id, name)}
        />
      ) : null}
      {tag.rules.length ? (
        <ul className="tag-rules" aria-label={`Rules of ${tag.name}`}>
          {tag.rules.map((rule) => (
            <li key={rule.id}>
              <code>{rule.query}</code>
              {rule.caught_up ? null : <span className="small muted"> · tagging past posts…</span>}
              {rule.past_from === 'matcher' && rule.past_note ? (
                <span className="small muted"> · past posts matched one by one ({rule.past_note})</span>
              ) : null}
              {canEdit ? (
                <button
                  type="button"
                  className="link-button"
                  aria-label={`Delete rule ${rule.query} of ${tag.name}`}
                  disabled={removeRule.isPending}
                  onClick={() => removeRule.mutate(rule.id)}
                >
                  Delete rule
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="small muted">Set by hand only.</p>
      )}
      {canEdit ? (
        <form
          className="form tag-rule-create"
          onSubmit={onSubmit}
          noValidate
          aria-busy={addRule.isPending || undefined}
        >
          <TextField
            label={`New rule for ${tag.name}`}
            hint="A query, as in a saved query: its matches carry the tag."
            value={query}
            onChange={setQuery}
            autoComplete="off"
            spellCheck={false}
          />
          <FormError message={error} />
          <div className="form-actions">
            <button type="submit" className="button" disabled={addRule.isPending}>
              Add rule to {tag.name}
            </button>
            <button type="button" className="button danger-text" onClick={() => setDeleting(true)}>
              Delete {tag.name}
            </button>
          </div>
        </form>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the tag ${tag.name}?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate()}
          onCancel={() => setDeleting(false)}
        >
          Its rules are deleted and no post carries it any more.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
