// Toasts (spec §2, §9). The same message is never stacked twice: its text is its toast id. From react-toastify's
// unstyled entry, as the container is (one entry, one toast store): its stylesheet is imported by src/main.tsx.
import { toast as toastify } from 'react-toastify/unstyled';

export type ToastType = 'success' | 'info' | 'warning' | 'error' | 'loading';

export const TOAST_DURATION_MS = 3000;

export function showToast(type: ToastType, message: string): void {
  const toastId = `${type}:${message}`;
  if (toastify.isActive(toastId)) return;
  if (type === 'loading') toastify.loading(message, { toastId });
  else toastify[type](message, { toastId });
}
