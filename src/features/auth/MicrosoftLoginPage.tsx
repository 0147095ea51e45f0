import { Link } from '@tanstack/react-router';

/** The Microsoft sign-in screen (spec §2, loaded lazily). */
export function MicrosoftLoginPage() {
  return (
    <main className="login-screen" aria-labelledby="ms-login-title">
      <div className="login-card">
        <h1 id="ms-login-title">Sign in with Microsoft</h1>
        <p className="muted">You will be sent to Microsoft to confirm who you are, then back to Murmur.</p>
        <Link to="/login" search={{}} className="button">
          Back to all sign-in options
        </Link>
      </div>
    </main>
  );
}
