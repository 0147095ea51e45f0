// Toasts (spec §2, §9). The same message is never stacked twice: its text is its toast id. From react-toastify's
// unstyled entry, as the container is (one entry, one toast store): its stylesheet is imported by src/main.tsx. The
// library is loaded on demand (it is not needed to draw the first screen, and /login's initial JS has a budget); the
// container asks for it as the app starts, and a toast shown before it arrives waits for it, in order.

export type ToastType = 'success' | 'info' | 'warning' | 'error' | 'loading';

export const TOAST_DURATION_MS = 3000;

type Toastify = typeof import('react-toastify/unstyled');
let toastifyModule: Promise<Toastify> | null = null;

/** react-toastify, loaded once. */
export const loadToastify = (): Promise<Toastify> => (toastifyModule ??= import('react-toastify/unstyled'));

export function showToast(type: ToastType, message: string): void {
  const toastId = `${type}:${message}`;
  void loadToastify().then(({ toast: toastify }) => {
    if (toastify.isActive(toastId)) return;
    if (type === 'loading') toastify.loading(message, { toastId });
    else toastify[type](message, { toastId });
  });
}
