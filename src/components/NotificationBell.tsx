// The header's notification centre (styled in app-header.css): a bell with the unread count (read again every minute
// and on focus), opening the user's notifications, newest first. Each opens its rule's dashboard at the window that
// fired and is marked read; "Mark all read" clears the count. A disclosure as the workspace switcher is: Enter or Space opens it, Escape or a
// click elsewhere closes it and gives the focus back to the bell.
import { useRef, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRouter } from '@tanstack/react-router';
import type { AppNotification } from '@contract/alerts';
import { markNotificationsRead, notificationsQuery, unreadCountQuery } from '@/api/alerts';
import { apiProblem } from '@/api/errors';
import { BellFace } from './Topbar';
import { useApp } from './use-app';
import { useDismiss } from './use-dismiss';

const when = (seconds: number, now = Date.now()) => {
  const minutes = Math.round((now - seconds * 1000) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return new Date(seconds * 1000).toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
};

export function NotificationBell() {
  const { api, queryClient } = useApp();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const unread = useQuery(unreadCountQuery(api)).data?.unread ?? 0;
  const list = useQuery({ ...notificationsQuery(api), enabled: open });

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['notifications'] });
  const mark = useMutation({
    mutationFn: (body: { ids: number[] } | { all: true }) => markNotificationsRead(api, body),
    onSuccess: ({ unread: left }) => {
      queryClient.setQueryData(unreadCountQuery(api).queryKey, { unread: left });
      void refresh();
    },
  });

  useDismiss(
    open,
    ref,
    () => setOpen(false),
    () => buttonRef.current,
  );

  const openOne = (notification: AppNotification) => {
    if (!notification.read) mark.mutate({ ids: [notification.id] });
    setOpen(false);
    void router.navigate({ href: notification.path });
  };

  return (
    <div className="bell" ref={ref}>
      <BellFace ref={buttonRef} unread={unread} expanded={open} onClick={() => setOpen((was) => !was)} />
      {open ? (
        <section id="notification-panel" className="bell-panel" aria-label="Notifications">
          <header className="bell-header">
            <h2>Notifications</h2>
            <button
              type="button"
              className="button small"
              disabled={!unread || mark.isPending}
              onClick={() => mark.mutate({ all: true })}
            >
              Mark all read
            </button>
          </header>
          {list.isPending ? (
            <p className="muted small" role="status">
              Loading notifications…
            </p>
          ) : list.isError ? (
            <p className="form-error" role="alert">
              {apiProblem(list.error).message}
            </p>
          ) : list.data.notifications.length === 0 ? (
            <p className="muted small" role="status">
              No notifications yet. When an alert rule you are told of fires, it shows here.
            </p>
          ) : (
            <ul className="bell-list">
              {list.data.notifications.map((n) => (
                <li key={n.id} className={n.read ? 'read' : 'unread'}>
                  <a
                    href={n.path}
                    onClick={(event) => {
                      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                      event.preventDefault();
                      openOne(n);
                    }}
                  >
                    <span className="bell-title">
                      {n.read ? null : <span className="visually-hidden">Unread: </span>}
                      {n.title}
                    </span>
                    <span className="bell-message">{n.message}</span>
                    <span className="muted small">
                      {n.workspace_name} ·{' '}
                      <time dateTime={new Date(n.created_at * 1000).toISOString()}>{when(n.created_at)}</time>
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : null}
    </div>
  );
}
