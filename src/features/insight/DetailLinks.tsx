// Links between the dashboards, a post's page and a profile's page: each carries the view's scope (and where it was
// opened from, for the page's back link), so the address alone reproduces the page.
import { Link } from '@tanstack/react-router';
import type { DetailLinks } from '@/components/PostCard';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';
import type { BackTarget } from './detail-search';

/** The links of the posts and people of a dashboard (or a profile's page): back to it; none when read-only. */
export function useDetailLinks(back: BackTarget): DetailLinks | undefined {
  const { workspaceId, search } = useInsightView();
  const readOnly = useReadOnly();
  return readOnly ? undefined : { workspaceId, search: { ...search, back } };
}

/** A profile's name as the link to its page. */
export function ProfileLink({
  profile,
  back,
}: {
  profile: { id: number; display_name: string; handle: string };
  back: BackTarget;
}) {
  const links = useDetailLinks(back);
  if (!links) return <strong>{profile.display_name}</strong>;
  const { workspaceId, search } = links;
  return (
    <Link
      to="/workspace/$workspaceId/insight/profile/$profileId"
      params={{ workspaceId, profileId: String(profile.id) }}
      search={search as never}
      aria-label={`Profile of ${profile.display_name} (@${profile.handle})`}
    >
      <strong>{profile.display_name}</strong>
    </Link>
  );
}

const BACK_LABELS: Record<BackTarget, string> = {
  discover: 'Back to discover',
  overview: 'Back to the overview',
  conversation: 'Back to the conversation',
  posts: 'Back to posts',
  people: 'Back to people',
  'filtered-posts': 'Back to filtered posts',
  'filtered-profiles': 'Back to filtered profiles',
  profile: 'Back to the profile',
};
const DISCOVER_RANGES = ['24h', '7d', '30d', '90d'];

/**
 * The way back to where the page was opened from, with the view's scope: discover (its query, preset range and
 * filters), a dashboard, or the author's profile; the overview when the address does not say.
 */
export function BackLink({ back, authorId }: { back: BackTarget | undefined; authorId?: number }) {
  const { workspaceId, search, scope } = useInsightView();
  const to = back === 'profile' && authorId === undefined ? 'overview' : (back ?? 'overview');
  const label = BACK_LABELS[to];
  const arrow = <span aria-hidden="true">← </span>;
  if (to === 'discover') {
    return (
      <Link
        className="back-link"
        to="/workspace/$workspaceId/discover"
        params={{ workspaceId }}
        search={{
          q: scope.q || undefined,
          range: DISCOVER_RANGES.includes(scope.range) ? (scope.range as '7d') : undefined,
          platforms: search.platforms,
          languages: search.languages,
        }}
      >
        {arrow}
        {label}
      </Link>
    );
  }
  if (to === 'profile') {
    return (
      <Link
        className="back-link"
        to="/workspace/$workspaceId/insight/profile/$profileId"
        params={{ workspaceId, profileId: String(authorId) }}
        search={search as never}
      >
        {arrow}
        {label}
      </Link>
    );
  }
  return (
    <Link
      className="back-link"
      to={`/workspace/$workspaceId/insight/${to}`}
      params={{ workspaceId }}
      search={search as never}
    >
      {arrow}
      {label}
    </Link>
  );
}
