/** The bell of the top bar: unread count from the page's loader, then polled (spec 6: read by polling). */
import { useEffect, useState } from 'react';
import { loadInbox } from '../../lib/notifications';
import { countOf } from '../../lib/words';

/** Same cadence as the session poll of spec 8. */
const POLL_MS = 30_000;

export function NotificationBell({ initialUnread }: { initialUnread: number }) {
  const [unread, setUnread] = useState(initialUnread);
  useEffect(() => setUnread(initialUnread), [initialUnread]);
  useEffect(() => {
    let stopped = false;
    const tick = () => {
      if (document.visibilityState !== 'visible') return;
      loadInbox(1).then((r) => !stopped && setUnread(r.unreadCount), () => undefined);
    };
    const timer = window.setInterval(tick, POLL_MS);
    const onChange = (e: Event) => setUnread((e as CustomEvent<number>).detail);
    window.addEventListener('notifications:unread', onChange);
    return () => {
      stopped = true;
      window.clearInterval(timer);
      window.removeEventListener('notifications:unread', onChange);
    };
  }, []);
  const label = unread === 0 ? 'Notificări: nimic necitit' : `Notificări: ${countOf(unread, 'notificare necitită', 'notificări necitite')}`;
  return (
    <a className="bell" href="/notificari" aria-label={label} title={label} data-testid="notification-bell">
      <svg viewBox="0 0 24 24" aria-hidden="true" className="bell__icon">
        <path d="M12 3a6 6 0 0 0-6 6v3.5L4.5 16h15L18 12.5V9a6 6 0 0 0-6-6zM9.5 19a2.5 2.5 0 0 0 5 0" />
      </svg>
      {unread > 0 ? (
        <span className="bell__count" data-testid="notification-count">
          {unread > 99 ? '99+' : unread}
        </span>
      ) : null}
    </a>
  );
}

/** Pages that change the unread count tell the bell at once instead of waiting for its poll. */
export function announceUnread(count: number): void {
  window.dispatchEvent(new CustomEvent('notifications:unread', { detail: count }));
}
