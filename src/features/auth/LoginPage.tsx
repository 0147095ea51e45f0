import { Link, useSearch } from '@tanstack/react-router';
import { useApp } from '../../components/use-app';
import { useSignedIn } from '../../components/use-session';
import { signInMethod, usesDevProvider } from './sign-in-method';
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
  const googleReady = signInMethod(config, 'google') !== null;
  const microsoftReady = signInMethod(config, 'microsoft') !== null;
  return (
    <main className="login-screen" aria-labelledby="login-title">
      <div className="login-card">
        <p className="brand" aria-hidden="true">
          Murmur
        </p>
        <h1 id="login-title">Sign in to Murmur</h1>
        <p className="muted">Social-media insights for your team.</p>
        {signedIn ? <SignedInNotice /> : null}
        <div className="login-actions">
          <button
            type="button"
            className="button provider"
            disabled={!googleReady || busy !== null}
            aria-describedby={googleReady ? undefined : 'google-status'}
            onClick={() => start('google')}
          >
            Sign in with Google
          </button>
          {microsoftReady ? (
            <Link
              to="/login/microsoft"
              search={inviteToken ? { token: inviteToken } : {}}
              className="button provider"
              disabled={busy !== null}
            >
              Sign in with Microsoft
            </Link>
          ) : (
            <button type="button" className="button provider" disabled aria-describedby="microsoft-status">
              Sign in with Microsoft
            </button>
          )}
        </div>
        <SignInStatus busy={busy} error={error} />
        {usesDevProvider(config) ? (
          <p className="muted small">
            Development sign-in: you will pick a demo account or sign in as a new person, without a password.
          </p>
        ) : null}
        {!googleReady ? (
          <p id="google-status" className="muted small">
            Google sign-in is not configured for this deployment.
          </p>
        ) : null}
        {!microsoftReady ? (
          <p id="microsoft-status" className="muted small">
            Microsoft sign-in is not configured for this deployment.
          </p>
        ) : null}
      </div>
    </main>
  );
}
