// A stand-in for the query editor's CodeMirror chunk in jsdom, which cannot run it: CodeMirror reads the selection of
// its shadow root with getSelection (Chromium's) or execCommand, neither of which jsdom has. The stand-in takes the
// same props and keeps their contract — the label's text names it, Ctrl+Enter calls onSubmit and nothing else,
// `handle.focus` focuses it with the caret left where it was, `handle.placeCaret` with the caret at an offset, nothing selected — and shows the errors it was given in data-errors ("pending" while
// undefined), so a dom test sees what the real editor would underline. The real editor is tested in Chromium
// (test/browser/real-server-*.test.ts).
import { useImperativeHandle, useRef } from 'react';
import type { QueryEditorProps } from '@/components/query-editor/query-editor-props';

export default function QueryEditorStandIn({
  value,
  onChange,
  errors,
  id,
  ariaLabelledBy,
  ariaDescription,
  onSubmit,
  handle,
}: QueryEditorProps) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  useImperativeHandle(
    handle,
    () => ({
      focus() {
        textarea.current?.focus();
      },
      placeCaret(at) {
        textarea.current?.focus();
        textarea.current?.setSelectionRange(at, at);
      },
    }),
    [],
  );
  return (
    <textarea
      ref={textarea}
      id={id}
      className="query-editor"
      aria-label={document.getElementById(ariaLabelledBy)?.textContent?.trim() || 'Query'}
      aria-description={ariaDescription}
      data-errors={errors === undefined ? 'pending' : JSON.stringify(errors)}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      onKeyDown={(event) => {
        if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
          event.preventDefault();
          onSubmit?.();
        }
      }}
    />
  );
}
