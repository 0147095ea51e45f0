// The query editor as pages use it: CodeMirror and the language mode load on demand (their own chunk), with a
// stand-in of the same size meanwhile. Discover and Saved queries both edit queries with it.
import { lazy, Suspense } from 'react';
import type { QueryEditorProps } from './query-editor-props';

export type { QueryEditorHandle } from './query-editor-props';

const CodeMirrorQueryEditor = lazy(() => import('./CodeMirrorQueryEditor'));

export function QueryEditor(props: QueryEditorProps) {
  return (
    <Suspense
      fallback={
        <div className="query-editor query-editor-loading" aria-busy="true">
          <pre>{props.value || ' '}</pre>
        </div>
      }
    >
      <CodeMirrorQueryEditor {...props} />
    </Suspense>
  );
}
