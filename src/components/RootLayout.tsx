import { Outlet } from '@tanstack/react-router';
import { ToastContainer } from 'react-toastify/unstyled';
import { TOAST_DURATION_MS } from '../lib/toast';

/** The root layout: every page, and the global toast area at the top center (spec §2, §9). */
export function RootLayout() {
  return (
    <>
      <Outlet />
      <ToastContainer position="top-center" autoClose={TOAST_DURATION_MS} theme="light" limit={3} />
    </>
  );
}
