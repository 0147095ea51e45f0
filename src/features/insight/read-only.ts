// A dashboard drawn read-only (a shared view: SharedPage.tsx): its charts and tables draw as on the dashboard, but
// nothing drills down or links to another page of the workspace. As a report (a PDF printed on the server), each
// chart has its table under it, its "what is counted" sentence is open, and its buttons are left out.
import { createContext, useContext } from 'react';

export type ReadOnlyMode = false | 'shared' | 'report';

export const ReadOnlyContext = createContext<ReadOnlyMode>(false);

/** Whether the dashboard is drawn read-only (shared, or as a report). */
export const useReadOnly = () => useContext(ReadOnlyContext) !== false;

/** Whether the dashboard is drawn as a report. */
export const useReport = () => useContext(ReadOnlyContext) === 'report';
