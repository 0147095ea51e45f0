// Tagging a post by hand from its card (issue 55, item 3), for owners and managers (viewers do not see it; the server
// checks it too): a "Tags" button opens the workspace's categories, one group each, with a checkbox a tag, checked when
// the post carries it (by hand or by a rule). Checking sets the tag by hand; unchecking removes it by hand, and the
// removal sticks: no rule sets it again on this post. Every member reads the tags a post carries: as chips under its
// text on a card (PostTagChips, from the list's answer), and on the post's page (PostTagList).
import { useId, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PostTag, SocialPost } from '@contract/social-posts';
import { tagLabel } from '@contract/tags';
import { apiProblem } from '@/api/errors';
import { workspaceQuery } from '@/api/queries';
import { postTagsQuery, setPostsTag, tagCategoriesQuery } from '@/api/tags';
import { showToast } from '@/lib/toast';
import { useApp } from './use-app';

export function PostTags({ post, workspaceId }: { post: SocialPost; workspaceId: string }) {
  const { api } = useApp();
  const workspace = useQuery(workspaceQuery(api, workspaceId)).data;
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  if (workspace?.privilege !== 'owner' && workspace?.privilege !== 'manager') return null;
  return (
    <span className="post-tags">
      <button
        ref={toggle}
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
      >
        Tags
      </button>
      {open ? <TagChoices id={panelId} post={post} workspaceId={workspaceId} /> : null}
    </span>
  );
}

function TagChoices({ id, post, workspaceId }: { id: string; post: SocialPost; workspaceId: string }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const categories = useQuery(tagCategoriesQuery(api, workspaceId));
  const carried = useQuery(postTagsQuery(api, workspaceId, post.id));
  // The change asked, shown at once (set in the click's own render) until it is written and the tags read again.
  const [asked, setAsked] = useState<{ tagId: string; tagged: boolean } | null>(null);
  const set = useMutation({
    mutationFn: ({ tagId, tagged }: { tagId: string; tagged: boolean; name: string }) =>
      setPostsTag(api, workspaceId, tagId, [post.id], tagged),
    onSuccess: async (_answer, { tagged, name }) => {
      showToast('success', tagged ? `Tagged ${name}` : `Tag ${name} removed from this post`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: postTagsQuery(api, workspaceId, post.id).queryKey }),
        queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey }),
      ]);
    },
    onError: (error) => showToast('error', apiProblem(error).message),
    onSettled: () => setAsked(null),
  });
  const label = `Tags of the post by @${post.author.handle}`;
  if (categories.isError || carried.isError)
    return (
      <span id={id} role="alert">
        {apiProblem(categories.error ?? carried.error).message}
      </span>
    );
  if (!categories.data || !carried.data)
    return (
      <span id={id} className="muted">
        Loading tags…
      </span>
    );
  const has = new Set(carried.data.tags.map((tag) => tag.tag_id));
  const shown = (tagId: string) => (asked?.tagId === tagId ? asked.tagged : has.has(tagId));
  if (!categories.data.categories.some((category) => category.tags.length))
    return (
      <span id={id} className="muted">
        No tags yet: owners and managers create them in Settings › Categories.
      </span>
    );
  return (
    <span id={id} role="group" aria-label={label} className="post-tag-choices">
      {categories.data.categories
        .filter((category) => category.tags.length)
        .map((category) => (
          <fieldset key={category.id}>
            <legend>{category.name}</legend>
            {category.tags.map((tag) => (
              <label key={tag.id}>
                <input
                  type="checkbox"
                  checked={shown(tag.id)}
                  disabled={asked !== null}
                  onChange={(event) => {
                    const tagged = event.target.checked;
                    setAsked({ tagId: tag.id, tagged });
                    set.mutate({ tagId: tag.id, tagged, name: tag.name });
                  }}
                />{' '}
                {tag.name}
              </label>
            ))}
          </fieldset>
        ))}
    </span>
  );
}

/** The tags a post carries, for every member (the post's page): "Topic › Coffee (by hand)", or that it has none. */
export function PostTagList({ postId, workspaceId }: { postId: number; workspaceId: string }) {
  const { api } = useApp();
  const carried = useQuery(postTagsQuery(api, workspaceId, postId));
  if (!carried.data) return null;
  const tags = carried.data.tags.map(
    (tag) => `${tagLabel(tag.category, tag.name)}${tag.set_by === 'manual' ? ' (by hand)' : ''}`,
  );
  return <span className="post-tag-list">Tags: {tags.length ? tags.join(', ') : 'none'}</span>;
}

/**
 * The tags a post carries, as chips under its text on a card, for every member: from the list's answer, or, once the
 * Tags control has read the post's own tags (it reads them again after each change), from that fresher read.
 */
export function PostTagChips({ post, workspaceId }: { post: SocialPost; workspaceId: string | undefined }) {
  return workspaceId === undefined ? (
    <TagChips tags={post.tags} />
  ) : (
    <FreshTagChips post={post} workspaceId={workspaceId} />
  );
}

function FreshTagChips({ post, workspaceId }: { post: SocialPost; workspaceId: string }) {
  const { api } = useApp();
  const fresh = useQuery({ ...postTagsQuery(api, workspaceId, post.id), enabled: false }).data;
  // The names as this page last read them (a rename in Settings › Categories reads them again), over an answer's,
  // which the server may have kept from before the rename; nothing is asked for them here.
  const categories = useQuery({ ...tagCategoriesQuery(api, workspaceId), enabled: false }).data?.categories;
  const tags = fresh?.tags ?? post.tags;
  const named = new Map(
    (categories ?? []).flatMap((category) =>
      category.tags.map((tag) => [tag.id, { name: tag.name, category: category.name }] as const),
    ),
  );
  return <TagChips tags={tags?.map((tag) => ({ ...tag, ...named.get(tag.tag_id) }))} />;
}

function TagChips({ tags }: { tags: PostTag[] | undefined }) {
  if (!tags?.length) return null;
  return (
    <ul className="post-tag-chips" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag.tag_id} title={tag.set_by === 'manual' ? 'Set by hand' : 'Set by a rule'}>
          {tagLabel(tag.category, tag.name)}
          {tag.set_by === 'manual' ? <span className="visually-hidden"> (set by hand)</span> : null}
        </li>
      ))}
    </ul>
  );
}
