/**
 * /notificari/preferinte: one switch per notification type plus the daily digest and instant
 * e-mail (CONTRACT.md section 3), a test digest to one's own address, and the watchlist.
 */
import { useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import notificationsCss from '../styles/notifications.css?url';
import { requireSession } from '../lib/auth.server';
import { preferencesFor, watchlistFor } from '../lib/notifications.server';
import { savePreferences, sendTestDigest, unfollow, type Preferences, type WatchItem } from '../lib/notifications';
import { formatWhen } from '../lib/dates';

export const meta: MetaFunction = () => [{ title: 'Preferințe de notificare · Geoportal cadastral' }];
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: notificationsCss }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  const [preferences, watchlist] = await Promise.all([preferencesFor(context.services.notifications, auth.user.id), watchlistFor(context.services.notifications, auth.user.id)]);
  return { preferences, watchlist, email: auth.user.email };
}

const TYPE_SWITCHES: Array<[keyof Preferences, string]> = [
  ['statusChange', 'Schimbări de stare ale documentelor urmărite în registratură'],
  ['registryDeadline', 'Termene în registratură'],
  ['countySyncDone', 'Sincronizare de județ încheiată'],
  ['weekendSyncFailed', 'Pași eșuați în sincronizarea de weekend'],
  ['cfExtractReady', 'Extrase CF gata de descărcat'],
  ['exportReady', 'Exporturi gata de descărcat'],
  ['watchChange', 'Modificări ale parcelelor și UAT-urilor urmărite'],
  ['backupFailed', 'Copii de siguranță eșuate sau întârziate (administratori)'],
];

export default function PreferencesPage() {
  const data = useLoaderData<typeof loader>();
  const [prefs, setPrefs] = useState<Preferences>(data.preferences);
  const [watchlist, setWatchlist] = useState<WatchItem[]>(data.watchlist);
  const [status, setStatus] = useState<string | null>(null);

  const toggle = async (key: keyof Preferences, value: boolean) => {
    setPrefs((p) => ({ ...p, [key]: value }));
    try {
      setPrefs(await savePreferences({ [key]: value }));
      setStatus('Preferințele au fost salvate.');
    } catch (err) {
      setPrefs((p) => ({ ...p, [key]: !value }));
      setStatus((err as Error).message);
    }
  };

  const Switch = ({ k, label }: { k: keyof Preferences; label: string }) => (
    <label>
      <input type="checkbox" checked={prefs[k]} onChange={(e) => void toggle(k, e.target.checked)} data-testid={`pref-${k}`} />
      {label}
    </label>
  );

  return (
    <section className="notif prefs" data-testid="preferences-page">
      <div className="notif__head">
        <h1>Preferințe de notificare</h1>
        <a className="btn btn--secondary" href="/notificari">
          Înapoi la notificări
        </a>
      </div>
      <fieldset>
        <legend>Ce doriți să aflați</legend>
        {TYPE_SWITCHES.map(([k, label]) => (
          <Switch key={k} k={k} label={label} />
        ))}
      </fieldset>
      <fieldset>
        <legend>Cum primiți e-mailurile ({data.email})</legend>
        <Switch k="instantEmail" label="E-mail imediat pentru fiecare notificare" />
        <Switch k="dailyDigest" label="Rezumat zilnic la ora 07:00 (notificările fără e-mail imediat intră în rezumat)" />
        <p className="notif__meta">Alertele critice (de exemplu, o sincronizare de weekend oprită) se trimit imediat oricum.</p>
      </fieldset>
      <div className="prefs__actions">
        <button
          type="button"
          className="btn btn--secondary"
          data-testid="test-digest"
          onClick={() => sendTestDigest().then((r) => setStatus(`Rezumatul de test a fost trimis la ${r.to}.`), (err: Error) => setStatus(err.message))}
        >
          Trimite-mi un rezumat de test
        </button>
        {status ? (
          <span className="prefs__status" role="status">
            {status}
          </span>
        ) : null}
      </div>
      <h2>Urmăriri</h2>
      <ul className="notif__list" data-testid="watchlist">
        {watchlist.length === 0 ? <li className="notif__empty">Nu urmăriți nicio parcelă. Folosiți „Urmărește” în panoul parcelei din geoportal.</li> : null}
        {watchlist.map((w) => (
          <li key={w.id} className="notif__item">
            <span />
            <div>
              <a href={w.kind === 'parcel' ? `/geoportal?feature=${w.featureId}` : `/geoportal?siruta=${w.siruta}`}>{w.label}</a>
              <div className="notif__meta">Urmărit din {formatWhen(w.createdAt, 'date')}</div>
            </div>
            <button
              type="button"
              className="btn btn--secondary"
              onClick={() => unfollow(w.id).then(() => setWatchlist((l) => l.filter((x) => x.id !== w.id)), (err: Error) => setStatus(err.message))}
            >
              Nu mai urmări
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
