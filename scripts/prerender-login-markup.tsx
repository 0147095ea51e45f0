// The sign-in screen as the login page first draws it (idle, not signed in), for this build's configuration: React's
// static markup of the same component the page renders. Loaded by the build (scripts/vite-prerender-login.ts) through
// Vite's module runner, so the app's modules are compiled as the app's build compiles them.
import { renderToStaticMarkup } from 'react-dom/server';
import { parseConfig } from '@/config';
import { SignInCardView } from '@/features/auth/SignInCardView';

/** The markup, or '' when the configuration is bad: that build shows the configuration error screen instead. */
export function loginMarkup(env: Record<string, unknown>): string {
  const parsed = parseConfig(env);
  if (!parsed.ok) return '';
  return renderToStaticMarkup(
    <SignInCardView
      config={parsed.config}
      busy={false}
      microsoft={
        // The attributes in the order the router's Link writes them: the app's drawing is the same markup.
        <a className="button provider" href="/login/microsoft">
          Sign in with Microsoft
        </a>
      }
    />,
  );
}
