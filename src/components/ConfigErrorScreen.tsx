import type { ConfigProblem } from '@/config';

/** Shown instead of the app when the build-time configuration is invalid: names every bad key. */
export function ConfigErrorScreen({ problems }: { problems: ConfigProblem[] }) {
  return (
    <main className="error-screen" role="alert" aria-labelledby="config-error-title">
      <h1 id="config-error-title">Murmur is misconfigured</h1>
      <p>This build of Murmur has invalid configuration. Fix these keys and build again:</p>
      <ul className="config-problems">
        {problems.map((problem) => (
          <li key={problem.key}>
            <code>{problem.key}</code>: {problem.message}
          </li>
        ))}
      </ul>
    </main>
  );
}
