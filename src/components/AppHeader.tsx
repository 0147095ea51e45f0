// The header of every signed-in screen (workspace pages, the creation wizard, the scraping area): the workspace
// switcher, who is signed in, and Sign out. Loaded with those screens only, never with the sign-in screen.
import { useRef, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery } from '@/api/queries';
import type { CurrentUserResponse, Privilege } from '@contract/workspaces';
import { JoinCodeForm } from './JoinCodeForm';
import { NotificationBell } from './NotificationBell';
import { useDismiss } from './use-dismiss';
import { useApp } from './use-app';
import { useSignOut } from './use-session';
import { ANY_WORKSPACE, SwitcherSummary, Topbar } from './Topbar';
import './app-header.css';

/** Where the header is: a workspace (by id, member or not), the creation wizard, or the scraping area. */
export type HeaderPlace = { workspaceId: string } | 'create' | 'scraping';

const ROLE: Record<Privilege, string> = { owner: 'Owner', manager: 'Manager', viewer: 'Viewer' };
const SCRAPING_LABEL = 'Scraping (internal)';

export function AppHeader({ place }: { place: HeaderPlace }) {
  const { api } = useApp();
  const me = useQuery(meQuery(api)).data;
  const signOut = useSignOut();
  const workspaceId = typeof place === 'object' ? place.workspaceId : null;
  // Only a workspace the user belongs to is named, and only it is home: an unknown id shows nothing of itself.
  const member = workspaceId !== null && (me?.workspaces.some((w) => w.id === workspaceId) ?? false);

  return (
    <Topbar
      brand={
        member && workspaceId !== null ? (
          <Link to="/workspace/$workspaceId" params={{ workspaceId }} className="brand">
            Murmur
          </Link>
        ) : (
          <Link to="/login" search={{}} className="brand">
            Murmur
          </Link>
        )
      }
      switcher={<WorkspaceSwitcher me={me} place={place} />}
      bell={<NotificationBell />}
      email={me?.email}
      onSignOut={signOut}
    />
  );
}

function currentLabel(me: CurrentUserResponse | undefined, place: HeaderPlace, internalId: string): string {
  if (place === 'create') return 'New workspace';
  if (place === 'scraping') return 'Scraping';
  if (place.workspaceId === internalId) return 'Scraping';
  return me?.workspaces.find((w) => w.id === place.workspaceId)?.name ?? ANY_WORKSPACE;
}

/**
 * A disclosure (native <details>: Enter or Space opens it, Tab walks it, Escape or a click elsewhere closes it): the
 * user's workspaces from users/me, "Create a workspace", and the join-code form. Its panel is rendered only while
 * open.
 */
function WorkspaceSwitcher({ me, place }: { me: CurrentUserResponse | undefined; place: HeaderPlace }) {
  const { config } = useApp();
  const internalId = config.VITE_INTERNAL_WORKSPACE_ID;
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDetailsElement>(null);
  const close = () => setOpen(false);

  useDismiss(open, ref, close, () => ref.current?.querySelector('summary'));

  return (
    <details
      ref={ref}
      className="switcher"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <SwitcherSummary label={currentLabel(me, place, internalId)} />
      {open ? (
        <div className="switcher-panel">
          <nav aria-label="Your workspaces">
            {me === undefined ? (
              <p className="muted small">Loading your workspaces…</p>
            ) : me.workspaces.length === 0 ? (
              <p className="muted small">You are not in any workspace yet.</p>
            ) : (
              <ul className="switcher-list">
                {me.workspaces.map((workspace) => {
                  const internal = internalId !== '' && workspace.id === internalId;
                  return (
                    <li key={workspace.id}>
                      <Link
                        to={internal ? '/scraping' : '/workspace/$workspaceId'}
                        params={{ workspaceId: workspace.id }}
                        // The router marks the link of the place the user is in (aria-current="page").
                        activeProps={{ 'aria-current': 'page' }}
                        onClick={close}
                      >
                        <span>{internal ? SCRAPING_LABEL : workspace.name}</span>
                        <span className="muted small"> · {ROLE[workspace.privilege]}</span>
                      </Link>
                    </li>
                  );
                })}
              </ul>
            )}
          </nav>
          <Link to="/workspace/create/name" className="button switcher-create" onClick={close}>
            Create a workspace
          </Link>
          <JoinCodeForm submitLabel="Join" onJoined={close} />
        </div>
      ) : null}
    </details>
  );
}
