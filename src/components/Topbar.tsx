// The signed-in header's markup (AppHeader.tsx gives it its data and behaviour). Without stylesheet imports: the build
// also draws it into the dashboards' shells (scripts/prerender-shell-markup.tsx).
import type { ReactNode } from 'react';

/** The switcher's face where no workspace of the user's is known (yet). */
export const ANY_WORKSPACE = 'Your workspaces';

/** The header: the brand, the workspace switcher, who is signed in, and Sign out. */
export function Topbar({
  brand,
  switcher,
  email,
  onSignOut,
}: {
  brand: ReactNode;
  switcher: ReactNode;
  email: string | undefined;
  onSignOut?: () => void;
}) {
  return (
    <header className="topbar">
      {brand}
      {switcher}
      <span className="spacer" />
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
