import { useEffect, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useApp } from '@/components/use-app';
import { Pending } from '@/components/Pending';
import { SignInError, signInErrorMessage } from './sign-in-error';
import { useContinueAfterSignIn } from './use-sign-in';

type Status =
  { kind: 'working' } | { kind: 'relayed' } | { kind: 'failed'; message: string; inviteToken: string | null };

/** /login/callback: finishes the sign-in the provider sent the browser back from, then lets /login decide. */
export function SignInCallbackPage() {
  const { api, session, config } = useApp();
  const continueAfterSignIn = useContinueAfterSignIn();
  const [status, setStatus] = useState<Status>({ kind: 'working' });

  useEffect(() => {
    let active = true;
    const callbackUrl = new URL(window.location.href);
    void import('./sign-in')
      .then(({ completeSignIn }) => completeSignIn({ api, session, config }, callbackUrl))
      .then(
        async (outcome) => {
          if (!active) return;
          if (outcome.kind === 'relayed') setStatus({ kind: 'relayed' });
          else if (outcome.kind === 'signedIn') await continueAfterSignIn(outcome.inviteToken);
        },
        (error: unknown) => {
          if (!active) return;
          // The code in the address is spent either way; the error page should not keep it.
          window.history.replaceState(window.history.state, '', window.location.pathname);
          setStatus({
            kind: 'failed',
            message: signInErrorMessage(error),
            inviteToken: error instanceof SignInError ? error.inviteToken : null,
          });
        },
      );
    return () => {
      active = false;
    };
    // Runs once per visit: the address it reads is this page's own.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (status.kind === 'working') {
    return (
      <main className="login-screen" aria-labelledby="callback-title">
        <h1 id="callback-title">Signing you in…</h1>
        <Pending label="Checking your sign-in" />
      </main>
    );
  }
  if (status.kind === 'relayed') {
    return (
      <main className="login-screen" aria-labelledby="callback-title">
        <h1 id="callback-title">Signed in</h1>
        <p>You can close this window.</p>
      </main>
    );
  }
  return (
    <main className="login-screen" aria-labelledby="callback-title">
      <div className="login-card">
        <h1 id="callback-title">Sign-in failed</h1>
        <p className="form-error" role="alert">
          {status.message}
        </p>
        <Link
          to="/login"
          search={status.inviteToken ? { token: status.inviteToken } : {}}
          className="button primary"
        >
          Back to sign-in
        </Link>
      </div>
    </main>
  );
}
