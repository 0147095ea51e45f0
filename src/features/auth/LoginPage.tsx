import { useEffect, useLayoutEffect } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import { useApp } from '@/components/use-app';
import { useSignedIn } from '@/components/use-session';
import { removePrerender, takeQueuedSignIn } from '@/lib/prerender';
import { signInMethod } from './sign-in-method';
import { SignInCardView } from './SignInCardView';
import { SignInStatus, useSignIn } from './use-sign-in';

/**
 * The login screen. A button loads the sign-in code on demand; the vendor (or, in local and dev builds, the server's
 * development OpenID provider standing in for it) returns an ID token that auth/login turns into a session.
 */
export function LoginPage() {
  const { config } = useApp();
  const signedIn = useSignedIn();
  const { token } = useSearch({ from: '/login/' });
  return <SignInCard config={config} inviteToken={token ?? null} signedIn={signedIn} />;
}

/**
 * Signed in but on the login screen (a rejected invite token stays on login; or the account lookup failed): the
 * screen says so and offers the way on; signing in again simply replaces the session.
 */
function SignedInNotice() {
  return (
    <div className="signed-in-notice" role="status">
      <p>You are already signed in.</p>
      <Link to="/login" search={{}} className="button primary" reloadDocument>
        Continue to your workspaces
      </Link>
    </div>
  );
}

function SignInCard({
  config,
  inviteToken,
  signedIn,
}: {
  config: ReturnType<typeof useApp>['config'];
  inviteToken: string | null;
  signedIn: boolean;
}) {
  const { busy, error, start } = useSignIn(inviteToken);
  // The page the build prerendered (login.html) stands over this one until the app has drawn it, and goes in the same
  // frame: no flash, no shift.
  useLayoutEffect(removePrerender, []);
  // Its Google button pressed before the app arrived: that sign-in starts now.
  useEffect(() => {
    if (takeQueuedSignIn() === 'google' && signInMethod(config, 'google') !== null) start('google');
    // Once, when the page first draws.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <SignInCardView
      config={config}
      notice={signedIn ? <SignedInNotice /> : null}
      status={<SignInStatus busy={busy} error={error} />}
      busy={busy !== null}
      onGoogle={() => start('google')}
      microsoft={
        <Link
          to="/login/microsoft"
          search={inviteToken ? { token: inviteToken } : {}}
          className="button provider"
          disabled={busy !== null}
        >
          Sign in with Microsoft
        </Link>
      }
    />
  );
}
