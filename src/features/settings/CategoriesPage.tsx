// Settings › Categories: the workspace's categories ("Topic", "Product line", "Complaint type"), each a set of tags.
// A tag is set on posts by hand (from a post's card) or by rules: queries in Murmur's language whose matches carry the
// tag, past posts at once (in the background: the rule says so until it is done) and new posts as they arrive. Every
// member sees the categories, their tags, rules and how many posts carry each; owners and managers create and delete
// them. Manual tags win over rules, and deleting a rule removes only what it set.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TagCategoriesResponse, TagCategoryResponse } from '@contract/tags';
import { apiProblem } from '@/api/errors';
import {
  createCategory,
  createTag,
  deleteCategory,
  renameCategory,
  tagCategoriesQuery,
  tagCountsQuery,
} from '@/api/tags';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError, TextField } from '@/components/Field';
import { EmptyState, PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { canManageMembers } from './member-rules';
import { RenameControl } from './RenameControl';
import { TagRow } from './TagRow';
import { useWorkspace } from './use-workspace';
import './categories.css';

/**
 * Past posts are being tagged by some rule: the page reads the categories again until they are done, and the counts
 * until their answer says so too and the analytics store has every row (they are its figures, a few seconds behind).
 */
const REFRESH_WHILE_APPLYING_MS = 2_000;

const applyingIn = (data: TagCategoriesResponse | undefined) =>
  Boolean(data?.categories.some((c) => c.tags.some((t) => t.rules.some((r) => !r.caught_up))));

export function CategoriesPage() {
  const { workspace, workspaceId } = useWorkspace();
  const { api } = useApp();
  const categories = useQuery({
    ...tagCategoriesQuery(api, workspaceId),
    refetchInterval: (query) => (applyingIn(query.state.data) ? REFRESH_WHILE_APPLYING_MS : false),
  });
  // Each TagRow reads them from the cache; this observer alone refreshes them.
  const counts = useQuery({
    ...tagCountsQuery(api, workspaceId),
    enabled: Boolean(categories.data?.categories.some((c) => c.tags.length)),
    refetchInterval: (query) =>
      query.state.data?.applying || query.state.data?.data_as_of ? REFRESH_WHILE_APPLYING_MS : false,
  });
  const canEdit = canManageMembers(workspace.privilege);
  return (
    <PageFrame
      title="Categories"
      description="Categories of tags that organise posts: set a tag by hand from a post, or by a rule — a query whose matches carry it, past posts and new ones. A tag set or removed by hand wins over rules."
    >
      {canEdit ? <NameForm workspaceId={workspaceId} /> : null}
      {categories.isError ? <FormError message={apiProblem(categories.error).message} /> : null}
      {counts.failureReason ? (
        // Said from the first failure: a store being prepared is asked again for minutes before it is an error.
        <p className="small muted" role="status">
          The posts carrying each tag cannot be counted now: {apiProblem(counts.failureReason).message}
        </p>
      ) : null}
      {categories.data ? (
        categories.data.categories.length ? (
          <ul className="tag-categories" aria-label="The workspace's categories">
            {categories.data.categories.map((category) => (
              <li key={category.id}>
                <CategoryCard workspaceId={workspaceId} category={category} canEdit={canEdit} />
              </li>
            ))}
          </ul>
        ) : (
          <EmptyState title="No categories yet">
            {canEdit
              ? 'Create one above, then add its tags and their rules.'
              : 'Owners and managers create categories and their tags.'}
          </EmptyState>
        )
      ) : categories.isError ? null : (
        <Pending label="Loading categories…" />
      )}
    </PageFrame>
  );
}

/** A one-field form: a new category, or (with `category`) a new tag in it. */
function NameForm({ workspaceId, category }: { workspaceId: string; category?: TagCategoryResponse }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: async (value: string): Promise<{ name: string }> =>
      category ? createTag(api, workspaceId, category.id, value) : createCategory(api, workspaceId, value),
    onSuccess: async (created) => {
      setName('');
      setError(null);
      showToast('success', category ? `Tag ${created.name} added` : `Category ${created.name} created`);
      await queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey });
    },
    onError: (failure) => setError(apiProblem(failure).message),
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    if (!name.trim()) {
      setError(category ? 'Name the tag.' : 'Name the category.');
      return;
    }
    create.mutate(name.trim());
  };
  return (
    <form
      className={`form ${category ? 'tag-create' : 'tag-category-create'}`}
      onSubmit={onSubmit}
      noValidate
      aria-busy={create.isPending || undefined}
    >
      {category ? null : <h2>New category</h2>}
      <TextField
        label={category ? `New tag in ${category.name}` : 'Name'}
        hint={category ? undefined : 'Such as Topic, Product line or Complaint type.'}
        value={name}
        onChange={setName}
        autoComplete="off"
        maxLength={60}
      />
      <FormError message={error} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={create.isPending}>
          {category ? `Add tag to ${category.name}` : 'Create category'}
        </button>
      </div>
    </form>
  );
}

function CategoryCard({
  workspaceId,
  category,
  canEdit,
}: {
  workspaceId: string;
  category: TagCategoryResponse;
  canEdit: boolean;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteCategory(api, workspaceId, category.id),
    onSuccess: async () => {
      setDeleting(false);
      showToast('success', `Category ${category.name} deleted`);
      await queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey });
    },
  });
  const headingId = `category-${category.id}`;
  return (
    <section className="card tag-category" aria-labelledby={headingId}>
      <h2 id={headingId}>{category.name}</h2>
      {canEdit ? (
        <RenameControl
          workspaceId={workspaceId}
          what="category"
          name={category.name}
          rename={(name) => renameCategory(api, workspaceId, category.id, name)}
        />
      ) : null}
      {category.tags.length ? (
        <ul className="tag-rows" aria-label={`Tags of ${category.name}`}>
          {category.tags.map((tag) => (
            <li key={tag.id}>
              <TagRow workspaceId={workspaceId} tag={tag} canEdit={canEdit} />
            </li>
          ))}
        </ul>
      ) : (
        <p className="small muted">No tags yet.</p>
      )}
      {canEdit ? (
        <>
          <NameForm workspaceId={workspaceId} category={category} />
          <button type="button" className="button danger-text" onClick={() => setDeleting(true)}>
            Delete {category.name}
          </button>
        </>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the category ${category.name}?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate()}
          onCancel={() => setDeleting(false)}
        >
          Its tags and their rules are deleted, and no post carries them any more.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
