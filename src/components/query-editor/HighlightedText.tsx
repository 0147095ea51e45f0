import { useMemo } from 'react';
import { highlightText } from './match-terms';

/** A post's text with the query's terms marked (approximate: see match-terms.ts). */
export function HighlightedText({ text, patterns }: { text: string; patterns: readonly string[] }) {
  const segments = useMemo(() => highlightText(text, patterns), [text, patterns]);
  return (
    <>
      {segments.map((segment, index) =>
        segment.match ? <mark key={index}>{segment.text}</mark> : <span key={index}>{segment.text}</span>,
      )}
    </>
  );
}
