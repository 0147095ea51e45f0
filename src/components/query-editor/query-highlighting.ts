// The query language's colours in CodeMirror: a view plugin marks every token of scanQuery (no Lezer grammar: the
// language is small and a query is at most a few thousand characters, so the whole text is scanned on each change).
import { RangeSetBuilder } from '@codemirror/state';
import {
  Decoration,
  ViewPlugin,
  type DecorationSet,
  type EditorView,
  type ViewUpdate,
} from '@codemirror/view';
import { scanQuery, type QueryTokenKind } from './query-tokens';

const marks = new Map<QueryTokenKind, Decoration>(
  (
    [
      'operator',
      'near',
      'phrase',
      'cased',
      'wildcard',
      'hashtag',
      'mention',
      'fieldName',
      'fieldValue',
      'paren',
      'comment',
      'word',
    ] as const
  ).map((kind) => [kind, Decoration.mark({ class: `cm-q-${kind}` })]),
);

function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  for (const token of scanQuery(view.state.doc.toString())) {
    builder.add(token.from, token.to, marks.get(token.kind)!);
  }
  return builder.finish();
}

export const queryHighlighting = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorate(view);
    }
    update(update: ViewUpdate) {
      if (update.docChanged) this.decorations = decorate(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);
