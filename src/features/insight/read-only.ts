// A dashboard drawn read-only (a shared view: SharedPage.tsx): its charts and tables draw as on the dashboard, but
// nothing drills down or links to another page of the workspace.
import { createContext, useContext } from 'react';

export const ReadOnlyContext = createContext(false);

/** Whether the dashboard is drawn read-only. */
export const useReadOnly = () => useContext(ReadOnlyContext);
