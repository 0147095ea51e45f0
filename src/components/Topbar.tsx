// The signed-in header's markup (AppHeader.tsx gives it its data and behaviour). Without stylesheet imports: the build
// also draws it into the dashboards' shells (scripts/prerender-shell-markup.tsx).
import type { ReactNode, Ref } from 'react';

/** The switcher's face where no workspace of the user's is known (yet). */
export const ANY_WORKSPACE = 'Your workspaces';

/** The header: the brand, the workspace switcher, who is signed in, and Sign out. */
export function Topbar({
  brand,
  switcher,
  bell,
  email,
  onSignOut,
}: {
  brand: ReactNode;
  switcher: ReactNode;
  /** The notification centre (absent from the prerendered shells). */
  bell?: ReactNode;
  email: string | undefined;
  onSignOut?: () => void;
}) {
  return (
    <header className="topbar">
      {brand}
      {switcher}
      <span className="spacer" />
      {bell}
      {email ? <span className="muted small account-email">{email}</span> : null}
      <button type="button" className="button" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}

/** The switcher's closed face: the place's name. */
export function SwitcherSummary({ label }: { label: string }) {
  return (
    <summary>
      <span className="visually-hidden">Workspace: </span>
      <span className="switcher-current">{label}</span>
    </summary>
  );
}

/**
 * The notification bell's face (NotificationBell.tsx gives it its behaviour; the shells draw it with no count): a
 * button named by the unread count, the count drawn as a badge.
 */
export function BellFace({
  unread,
  expanded,
  onClick,
  ref,
}: {
  unread: number;
  expanded: boolean;
  onClick?: () => void;
  ref?: Ref<HTMLButtonElement>;
}) {
  return (
    <button
      ref={ref}
      type="button"
      className="bell-button"
      aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'}
      aria-expanded={expanded}
      aria-controls="notification-panel"
      onClick={onClick}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
          fill="currentColor"
        />
      </svg>
      {unread ? (
        <span className="bell-count" aria-hidden="true">
          {unread > 99 ? '99+' : unread}
        </span>
      ) : null}
    </button>
  );
}
