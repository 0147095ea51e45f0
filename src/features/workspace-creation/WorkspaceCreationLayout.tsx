import { Outlet, useLocation } from '@tanstack/react-router';

const STEPS = [
  { segment: 'name', label: 'Name' },
  { segment: 'language', label: 'Language' },
  { segment: 'user-info', label: 'About you' },
] as const;

/** The workspace-creation wizard frame: its steps in order, the current one marked. */
export function WorkspaceCreationLayout() {
  const { pathname } = useLocation();
  const current = STEPS.findIndex((step) => pathname.endsWith(`/${step.segment}`));
  return (
    <main className="standalone" aria-labelledby="create-title">
      <h1 id="create-title">Create a workspace</h1>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((step, index) => (
          <li key={step.segment} aria-current={index === current ? 'step' : undefined}>
            {step.label}
          </li>
        ))}
      </ol>
      <Outlet />
    </main>
  );
}
