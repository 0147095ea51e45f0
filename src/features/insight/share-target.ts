// What "Share or export…" (ShareReadOnly.tsx) shares on a page whose view is not a dashboard's body: Compare gives its
// saved queries and range here (ComparePage.tsx); null while it has fewer than two to compare.
import { createContext, useContext } from 'react';
import type { CompareView } from '@contract/share-links';

export const CompareShareContext = createContext<CompareView | null>(null);

/** Compare's view as a link or a report shows it, or null. */
export const useCompareShare = () => useContext(CompareShareContext);
