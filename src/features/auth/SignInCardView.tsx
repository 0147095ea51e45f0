import type { ReactNode } from 'react';
import type { AppConfig } from '@/config';
import { signInMethod, usesDevProvider } from './sign-in-method';

export interface SignInCardViewProps {
  config: AppConfig;
  /** Shown under the heading (the "already signed in" notice). */
  notice?: ReactNode;
  /** The sign-in's progress or error. */
  status?: ReactNode;
  busy: boolean;
  onGoogle?: () => void;
  /** The Microsoft control when that sign-in is configured: a router link in the app, a plain link in the prerender. */
  microsoft: ReactNode;
}

/**
 * The sign-in card's markup, with nothing of the router or the session: the login page renders it live, and the build
 * renders it into `login.html` (scripts/vite-prerender-login.tsx) so the screen paints before the app's code arrives.
 * Both come from this one component, so the page the app draws is the page already on screen.
 */
export function SignInCardView({ config, notice, status, busy, onGoogle, microsoft }: SignInCardViewProps) {
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
        {notice}
        <div className="login-actions">
          <button
            type="button"
            className="button provider"
            data-vendor="google"
            disabled={!googleReady || busy}
            aria-describedby={googleReady ? undefined : 'google-status'}
            onClick={onGoogle}
          >
            Sign in with Google
          </button>
          {microsoftReady ? (
            microsoft
          ) : (
            <button type="button" className="button provider" disabled aria-describedby="microsoft-status">
              Sign in with Microsoft
            </button>
          )}
        </div>
        {status}
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
