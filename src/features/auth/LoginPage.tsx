import { Link } from '@tanstack/react-router';
import { useApp } from '../../components/use-app';

/**
 * The login screen. Signing in posts a vendor ID token to auth/login; the vendor flows themselves
 * (Google Identity Services, Microsoft, the development OpenID provider) are wired with the server.
 */
export function LoginPage() {
  const { config } = useApp();
  const googleReady = config.VITE_GOOGLE_CLIENT_ID !== '';
  const microsoftReady = config.VITE_MICROSOFT_CLIENT_ID !== '';
  return (
    <main className="login-screen" aria-labelledby="login-title">
      <div className="login-card">
        <p className="brand" aria-hidden="true">
          Murmur
        </p>
        <h1 id="login-title">Sign in to Murmur</h1>
        <p className="muted">Social-media insights for your team.</p>
        <div className="login-actions">
          <button
            type="button"
            className="button provider"
            disabled={!googleReady}
            aria-describedby="google-status"
          >
            Sign in with Google
          </button>
          {microsoftReady ? (
            <Link to="/login/microsoft" className="button provider">
              Sign in with Microsoft
            </Link>
          ) : (
            <button type="button" className="button provider" disabled aria-describedby="microsoft-status">
              Sign in with Microsoft
            </button>
          )}
        </div>
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
