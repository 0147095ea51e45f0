import { lazy, Suspense } from 'react';
import { Outlet } from '@tanstack/react-router';
import { loadToastify, TOAST_DURATION_MS } from '@/lib/toast';

/** The toast area, with react-toastify loaded after the first screen (src/lib/toast.ts). */
const ToastArea = lazy(() =>
  loadToastify().then(({ ToastContainer }) => ({
    default: () => (
      <ToastContainer position="top-center" autoClose={TOAST_DURATION_MS} theme="light" limit={3} />
    ),
  })),
);

/** The root layout: every page, and the global toast area at the top center (spec §2, §9). */
export function RootLayout() {
  return (
    <>
      <Outlet />
      <Suspense fallback={null}>
        <ToastArea />
      </Suspense>
    </>
  );
}
