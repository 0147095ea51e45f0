// Tagging many posts at once from a list of posts (issue 55, item 3), for owners and managers: "Tag several posts"
// puts a checkbox beside each post of the page (and one for all of them); a tag, chosen from the workspace's categories,
// is then set by hand on the checked posts, or removed by hand from them, in one call (POST
// /workspaces/{id}/tags/{tagId}/posts), or on every post of the list, beyond its page (TagList.tsx). As on a post's
// card, a removal by hand sticks: no rule sets the tag again on those posts. Not offered to viewers, in a shared view,
// nor in a workspace without tags.
import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InsightsBody } from '@contract/insights';
import type { SocialPost } from '@contract/social-posts';
import { tagLabel } from '@contract/tags';
import { apiProblem } from '@/api/errors';
import { setPostsTag, tagCategoriesQuery } from '@/api/tags';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { formatPosts } from './insight-format';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';
import { TagWholeList } from './TagList';
import './tag-posts.css';

const NONE: ReadonlySet<number> = new Set();

/**
 * The page's selection of posts to tag: null when the reader may not tag here. It starts empty, and empties again
 * with another page of posts.
 */
export function useTagSelection(posts: ReadonlyArray<Pick<SocialPost, 'id'>>) {
  const readOnly = useReadOnly();
  const { workspace } = useInsightView();
  const allowed = !readOnly && (workspace.privilege === 'owner' || workspace.privilege === 'manager');
  /** Whether the checkboxes are shown (the reader asked to tag several posts). */
  const [selecting, setSelecting] = useState(false);
  // The selection belongs to the page of posts it was made on.
  const ids = posts.map((post) => post.id).join(',');
  const [state, setState] = useState<{ ids: string; selected: ReadonlySet<number> }>({ ids, selected: NONE });
  const selected = state.ids === ids ? state.selected : NONE;
  if (!allowed) return null;
  const setSelected = (next: ReadonlySet<number>) => setState({ ids, selected: next });
  return {
    selecting,
    setSelecting,
    selected,
    setSelected,
    toggle: (postId: number, on: boolean) => {
      const next = new Set(selected);
      if (on) next.add(postId);
      else next.delete(postId);
      setSelected(next);
    },
  };
}

type Selection = NonNullable<ReturnType<typeof useTagSelection>>;

/** A post's checkbox, while the reader is tagging several posts: named by its place on the page and its author. */
export function SelectPost({
  selection,
  post,
  place,
}: {
  selection: Selection | null;
  post: SocialPost;
  /** 1 for the page's first post. */
  place: number;
}) {
  if (!selection?.selecting) return null;
  return (
    <label className="tag-select-post">
      <input
        type="checkbox"
        checked={selection.selected.has(post.id)}
        onChange={(event) => selection.toggle(post.id, event.target.checked)}
      />{' '}
      Select post {place} (by @{post.author.handle})
    </label>
  );
}

/**
 * The controls above the list: start or stop selecting, all of the page, the tag, and set or remove it on the checked
 * posts or on every post of the list.
 */
export function TagPostsPanel({
  selection,
  posts,
  list,
}: {
  selection: Selection | null;
  posts: ReadonlyArray<SocialPost>;
  /** The list's request and its total: every post of it may be tagged at once. */
  list: { body: InsightsBody; total: number };
}) {
  const { api } = useApp();
  const { workspaceId } = useInsightView();
  const queryClient = useQueryClient();
  const id = useId();
  const categories = useQuery({ ...tagCategoriesQuery(api, workspaceId), enabled: selection !== null });
  const withTags = (categories.data?.categories ?? []).filter((category) => category.tags.length);
  const [chosen, setChosen] = useState('');
  const tags = withTags.flatMap((category) =>
    category.tags.map((tag) => ({ id: tag.id, name: tagLabel(category.name, tag.name) })),
  );
  const tag = tags.find((t) => t.id === chosen) ?? tags[0];
  const set = useMutation({
    mutationFn: ({ tagged }: { tagged: boolean }) =>
      setPostsTag(api, workspaceId, tag!.id, [...selection!.selected], tagged),
    onSuccess: async ({ changed }, { tagged }) => {
      showToast(
        'success',
        tagged
          ? `Tagged ${tag!.name}: ${formatPosts(changed)} changed`
          : `Tag ${tag!.name} removed: ${formatPosts(changed)} changed`,
      );
      selection!.setSelected(NONE);
      // The tags' counts, the posts' tags and every dashboard refined by or broken down into tags.
      await Promise.all(
        (['tag-categories', 'post-tags', 'insights'] as const).map((part) =>
          queryClient.invalidateQueries({ queryKey: ['workspaces', workspaceId, part] }),
        ),
      );
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });
  if (!selection || !posts.length || !tags.length) return null;
  if (!selection.selecting) {
    return (
      <p className="tag-posts">
        <button type="button" className="button small" onClick={() => selection.setSelecting(true)}>
          Tag several posts
        </button>
      </p>
    );
  }
  const count = selection.selected.size;
  const all = posts.every((post) => selection.selected.has(post.id));
  return (
    <div className="tag-posts" role="group" aria-label="Tag several posts">
      <label>
        <input
          type="checkbox"
          checked={all}
          onChange={(event) =>
            selection.setSelected(event.target.checked ? new Set(posts.map((post) => post.id)) : NONE)
          }
        />{' '}
        All {formatPosts(posts.length)} of this page
      </label>
      <div className="field inline">
        <label htmlFor={`${id}-tag`}>Tag</label>
        <select
          id={`${id}-tag`}
          className="input"
          value={tag!.id}
          onChange={(event) => setChosen(event.target.value)}
        >
          {withTags.map((category) => (
            <optgroup key={category.id} label={category.name}>
              {category.tags.map((t) => (
                <option key={t.id} value={t.id}>
                  {tagLabel(category.name, t.name)}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
      <button
        type="button"
        className="button small primary"
        disabled={!count || set.isPending}
        onClick={() => set.mutate({ tagged: true })}
      >
        Tag {formatPosts(count)}
      </button>
      <button
        type="button"
        className="button small"
        disabled={!count || set.isPending}
        onClick={() => set.mutate({ tagged: false })}
      >
        Remove the tag from {formatPosts(count)}
      </button>
      <TagWholeList body={list.body} total={list.total} tag={tag!} />
      <button
        type="button"
        className="link-button small"
        onClick={() => {
          selection.setSelecting(false);
          selection.setSelected(NONE);
        }}
      >
        Done
      </button>
    </div>
  );
}
