import { Link, useSearch } from '@tanstack/react-router';
import { useApp } from '@/components/use-app';
import { signInMethod, usesDevProvider } from './sign-in-method';
import { SignInStatus, useSignIn } from './use-sign-in';

/** The Microsoft sign-in screen (spec §2, loaded lazily). */
export function MicrosoftLoginPage() {
  const { config } = useApp();
  const inviteToken = useSearch({ from: '/login/microsoft' }).token ?? null;
  const { busy, error, start } = useSignIn(inviteToken);
  const ready = signInMethod(config, 'microsoft') !== null;
  return (
    <main className="login-screen" aria-labelledby="ms-login-title">
      <div className="login-card">
        <h1 id="ms-login-title">Sign in with Microsoft</h1>
        <p className="muted">
          {usesDevProvider(config)
            ? 'The development sign-in stands in for Microsoft here: pick a demo account or sign in as a new person.'
            : 'Microsoft opens in a new window to confirm who you are; then you are back in Murmur.'}
        </p>
        <div className="login-actions">
          <button
            type="button"
            className="button primary"
            disabled={!ready || busy !== null}
            aria-describedby={ready ? undefined : 'microsoft-status'}
            onClick={() => start('microsoft')}
          >
            Continue with Microsoft
          </button>
          <Link to="/login" search={inviteToken ? { token: inviteToken } : {}} className="button">
            Back to all sign-in options
          </Link>
        </div>
        <SignInStatus busy={busy} error={error} />
        {!ready ? (
          <p id="microsoft-status" className="muted small">
            Microsoft sign-in is not configured for this deployment.
          </p>
        ) : null}
      </div>
    </main>
  );
}
