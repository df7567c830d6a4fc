/** /notificari: the in-app inbox (spec 1.6, CONTRACT.md section 3): read/unread, links, mark read. */
import { useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import notificationsCss from '../styles/notifications.css?url';
import { requireSession } from '../lib/auth.server';
import { inboxFor } from '../lib/notifications.server';
import { markRead, TYPE_NAMES, type InboxItem } from '../lib/notifications';
import { announceUnread } from '../components/notifications/NotificationBell';
import { countOf } from '../lib/words';
import { formatWhen } from '../lib/dates';

export const meta: MetaFunction = () => [{ title: 'Notificări · Geoportal cadastral' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: notificationsCss }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return inboxFor(context.services.notifications, auth.user.id);
}

const when = (iso: string) => formatWhen(iso, 'dateTimeMedium');

export default function NotificationsPage() {
  const data = useLoaderData<typeof loader>();
  const [items, setItems] = useState<InboxItem[]>(data.items);
  const [unread, setUnread] = useState(data.unreadCount);
  const [error, setError] = useState<string | null>(null);

  const mark = async (what: { ids: string[] } | { all: true }) => {
    setError(null);
    try {
      const r = await markRead(what);
      const now = new Date().toISOString();
      setItems((prev) => prev.map((n) => (('all' in what || what.ids.includes(n.id)) && !n.readAt ? { ...n, readAt: now } : n)));
      setUnread(r.unreadCount);
      announceUnread(r.unreadCount);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section className="notif" data-testid="notifications-page">
      <div className="notif__head">
        <div>
          <h1>Notificări</h1>
          <p className="notif__meta" data-testid="unread-summary">
            {unread === 0 ? 'Nicio notificare necitită.' : unread === 1 ? 'O notificare necitită.' : `${countOf(unread, 'notificare necitită', 'notificări necitite')}.`}
          </p>
        </div>
        <div className="prefs__actions">
          <a className="btn btn--secondary" href="/notificari/preferinte">
            Preferințe
          </a>
          <button type="button" className="btn btn--primary" disabled={unread === 0} onClick={() => mark({ all: true })} data-testid="mark-all-read">
            Marchează toate ca citite
          </button>
        </div>
      </div>
      {error ? <p className="notif__meta" role="alert">{error}</p> : null}
      <ul className="notif__list">
        {items.length === 0 ? <li className="notif__empty">Nu aveți notificări.</li> : null}
        {items.map((n) => (
          <li key={n.id} className={n.readAt ? 'notif__item' : 'notif__item is-unread'} data-testid="notification">
            <span className="notif__dot" aria-hidden="true" />
            <div>
              <div className="notif__title">
                {n.link ? (
                  <a href={n.link} onClick={() => (!n.readAt ? void mark({ ids: [n.id] }) : undefined)}>
                    {n.title}
                  </a>
                ) : (
                  n.title
                )}
              </div>
              {n.body ? <p className="notif__body">{n.body}</p> : null}
              <div className="notif__meta">
                {TYPE_NAMES[n.type] ?? n.type} · {when(n.createdAt)}
                {n.readAt ? ' · citită' : ''}
              </div>
            </div>
            {!n.readAt ? (
              <button type="button" className="btn btn--secondary" onClick={() => mark({ ids: [n.id] })}>
                Marchează ca citită
              </button>
            ) : (
              <span />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
