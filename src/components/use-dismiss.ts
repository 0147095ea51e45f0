// A popover's way out: while `open`, a pointer down outside `container` or Escape closes it, and Escape gives the
// focus back to `focusBack` (the control that opened it). The header's workspace switcher and bell share it.
import { useEffect, useRef, type RefObject } from 'react';

export function useDismiss(
  open: boolean,
  container: RefObject<HTMLElement | null>,
  close: () => void,
  focusBack: () => HTMLElement | null | undefined,
) {
  // The latest callbacks, without listening anew on every render.
  const latest = useRef({ close, focusBack });
  useEffect(() => {
    latest.current = { close, focusBack };
  });
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!container.current?.contains(event.target as Node)) latest.current.close();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      latest.current.close();
      latest.current.focusBack()?.focus();
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open, container]);
}
