// The query editor itself (CodeMirror 6), loaded on demand by QueryEditor.tsx so that its code is a chunk of its own.
// Controlled: `value` in, `onChange` out; the server's errors and warnings (from the page's query check) become inline
// diagnostics, a warning's fix its action.
//
// It lives in a shadow root: CodeMirror's styles (style-mod) go into a <style> element in a document, which the CSP
// (style-src without 'unsafe-inline') blocks, but into constructed stylesheets (adoptedStyleSheets, CSSOM) in a shadow
// root, which the CSP allows. CSS custom properties (--border, --focus, …) cross the boundary; IDREFs do not, so the
// label's text is copied into aria-label and clicking the label focuses the editor.
import { useEffect, useImperativeHandle, useLayoutEffect, useRef } from 'react';
import { autocompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { completeQuery, NO_SUGGESTIONS } from './query-completion';
import { queryHighlighting } from './query-highlighting';
import type { QueryEditorHandle, QueryEditorProps } from './query-editor-props';
import { toDiagnostics } from './diagnostics';

const theme = EditorView.theme({
  '&': {
    border: '1px solid var(--border)',
    borderRadius: 'var(--radius)',
    background: 'var(--surface)',
    fontSize: '0.95rem',
  },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    lineHeight: '1.6',
    maxHeight: '12rem',
    overflow: 'auto',
  },
  '.cm-content': { padding: '0.5rem 0', minHeight: '4.8em', caretColor: 'var(--text)' },
  '.cm-line': { padding: '0 0.75rem' },
  '.cm-placeholder': { color: 'var(--muted)' },
  '.cm-q-operator, .cm-q-near': { color: 'var(--primary)', fontWeight: '700' },
  '.cm-q-phrase': { color: '#0f6e3d' },
  '.cm-q-wildcard': { color: '#8a4b00' },
  '.cm-q-hashtag, .cm-q-mention': { color: '#0b61a4' },
  '.cm-q-fieldName': { color: '#9d174d', fontWeight: '600' },
  '.cm-q-fieldValue': { color: '#9d174d' },
  '.cm-q-paren': { color: 'var(--muted)', fontWeight: '700' },
  '.cm-q-comment': { color: 'var(--muted)', fontStyle: 'italic' },
  '.cm-q-cased': { color: '#0f5132', fontWeight: '600' },
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--destructive)',
    textUnderlineOffset: '3px',
    backgroundColor: '#fef3f2',
  },
  '.cm-tooltip': {
    border: '1px solid var(--border)',
    borderRadius: 'var(--radius)',
    background: 'var(--surface)',
  },
  '.cm-tooltip-autocomplete > ul > li[aria-selected]': {
    background: 'var(--primary)',
    color: 'var(--primary-text)',
  },
});

export default function CodeMirrorQueryEditor({
  value,
  onChange,
  errors,
  warnings,
  id,
  ariaLabelledBy,
  ariaDescription,
  onSubmit,
  suggestions,
  placeholderText = 'e.g. (coffee OR tea) NOT decaf lang:en',
  handle,
}: QueryEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // Callbacks and suggestions change on every render; the editor reads them through refs, created once.
  const latest = useRef({ onChange, onSubmit, suggestions });
  useLayoutEffect(() => {
    latest.current = { onChange, onSubmit, suggestions };
  });

  useEffect(() => {
    const element = host.current!;
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    const label = document.getElementById(ariaLabelledBy);
    const editor = new EditorView({
      parent: root,
      root,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                latest.current.onSubmit?.();
                return true;
              },
            },
            ...completionKeymap,
            ...defaultKeymap,
            ...historyKeymap,
          ]),
          autocompletion({
            override: [
              (context) => completeQuery(context, () => latest.current.suggestions ?? NO_SUGGESTIONS),
            ],
            icons: false,
          }),
          EditorView.lineWrapping,
          bracketMatching(),
          placeholder(placeholderText),
          queryHighlighting,
          theme,
          EditorView.contentAttributes.of({
            id,
            'aria-label': label?.textContent?.trim() || 'Query',
            ...(ariaDescription ? { 'aria-description': ariaDescription } : {}),
            'aria-multiline': 'true',
            spellcheck: 'false',
            autocapitalize: 'off',
            autocorrect: 'off',
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    const focusEditor = () => editor.focus();
    label?.addEventListener('click', focusEditor);
    return () => {
      label?.removeEventListener('click', focusEditor);
      editor.destroy();
      view.current = null;
    };
    // The editor is created once; value and errors reach it through the effects below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A value from outside (the address, a reset) replaces the text; the editor's own changes come back equal.
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  // undefined: not checked yet for this text, keep the diagnostics shown (CodeMirror maps them through edits).
  useEffect(() => {
    const editor = view.current;
    if (!editor || !errors) return;
    editor.dispatch(
      setDiagnostics(editor.state, toDiagnostics(errors, editor.state.doc.length, warnings ?? [])),
    );
  }, [errors, warnings]);

  useImperativeHandle(
    handle,
    (): QueryEditorHandle => ({
      focus() {
        view.current?.focus();
      },
      placeCaret(at) {
        const editor = view.current;
        if (!editor) return;
        editor.dispatch({
          selection: { anchor: Math.max(0, Math.min(at, editor.state.doc.length)) },
          scrollIntoView: true,
        });
        editor.focus();
      },
    }),
    [],
  );

  return <div ref={host} className="query-editor" />;
}
