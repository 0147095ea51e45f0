import { Outlet, useLocation } from '@tanstack/react-router';
import { AppHeader } from '@/components/AppHeader';
import { STEPS, WizardProvider } from './wizard-state';

/**
 * The workspace-creation wizard frame: the signed-in header (the way out to another workspace, and Sign out), its
 * steps in order, the current one marked, and the draft they share.
 */
export function WorkspaceCreationLayout() {
  const { pathname } = useLocation();
  const current = STEPS.findIndex((step) => pathname.endsWith(`/${step.segment}`));
  return (
    <>
      <AppHeader place="create" />
      <main className="standalone wizard" aria-labelledby="create-title">
        <h1 id="create-title">Create a workspace</h1>
        <ol className="steps" aria-label="Steps">
          {STEPS.map((step, index) => (
            <li
              key={step.segment}
              aria-current={index === current ? 'step' : undefined}
              data-done={index < current ? '' : undefined}
            >
              {step.label}
              {index < current ? <span className="visually-hidden"> (done)</span> : null}
            </li>
          ))}
        </ol>
        <WizardProvider>
          <Outlet />
        </WizardProvider>
      </main>
    </>
  );
}
