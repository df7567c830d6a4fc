/** The geoportal panel's follow button and change timeline (watchlist, docs/notifications.md). */
import { useEffect, useState } from 'react';
import { FIELD_NAMES, follow, loadHistory, loadWatchlist, unfollow, type HistoryItem } from '../../lib/notifications';

export function WatchPanel({ featureId }: { featureId: string }) {
  const [watchId, setWatchId] = useState<string | null | undefined>(undefined);
  const [history, setHistory] = useState<HistoryItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    setWatchId(undefined);
    setHistory(null);
    setError(null);
    loadWatchlist().then(
      (r) => !stale && setWatchId(r.items.find((w) => w.featureId === featureId)?.id ?? null),
      (err: Error) => !stale && setError(err.message),
    );
    loadHistory(featureId).then(
      (r) => !stale && setHistory(r.items),
      (err: Error) => !stale && setError(err.message),
    );
    return () => {
      stale = true;
    };
  }, [featureId]);

  const toggle = async () => {
    setError(null);
    try {
      if (watchId) {
        await unfollow(watchId);
        setWatchId(null);
      } else {
        setWatchId((await follow({ featureId })).item.id);
      }
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div className="gp-watch" data-testid="watch-panel">
      <button type="button" className="gp-btn" disabled={watchId === undefined} onClick={() => void toggle()} data-testid="follow-button">
        {watchId ? 'Nu mai urmări parcela' : 'Urmărește parcela'}
      </button>
      {watchId ? <p className="gp-panel__note">Veți fi anunțat când se schimbă proprietarii, CF-ul, suprafața sau geometria.</p> : null}
      {error ? <p className="gp-panel__note gp-panel__note--fail">{error}</p> : null}
      {history && history.length > 0 ? (
        <>
          <h3 className="gp-panel__eyebrow">Istoric modificări</h3>
          <ol className="gp-timeline" data-testid="change-timeline">
            {history.map((h, i) => (
              <li key={i}>
                <span className="gp-muted">{new Date(h.at).toLocaleString('ro-RO', { dateStyle: 'medium', timeStyle: 'short' })}</span>{' '}
                <strong>{FIELD_NAMES[h.field] ?? h.field}</strong>
                {h.before !== null || h.after !== null ? `: ${h.before ?? '—'} → ${h.after ?? '—'}` : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </div>
  );
}
