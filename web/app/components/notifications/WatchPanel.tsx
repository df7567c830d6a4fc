/**
 * The geoportal panel's follow button and the feature's change timeline: every change the syncs
 * and enrichments saw, for any parcel, followed or not (docs/notifications.md "History").
 */
import { useEffect, useState } from 'react';
import { PERSONAL_ENRICHMENT_KEYS } from '../../../../domain/auth/viewer';
import { formatWhen } from '../../lib/dates';
import { FIELD_NAMES, follow, loadHistory, loadWatchlist, unfollow, type HistoryItem } from '../../lib/notifications';

/** Who saw the change, as the timeline says it. */
/** Fields whose values the server withholds from viewers without the right (the viewer rule). */
const PERSONAL_FIELDS: ReadonlySet<string> = new Set<string>(PERSONAL_ENRICHMENT_KEYS);

const SOURCE_NAMES: Record<HistoryItem['source'], string> = { sync: 'sincronizare', enrichment: 'îmbogățire' };

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
      {watchId ? <p className="gp-panel__note">Veți fi anunțat când se schimbă proprietarii, CF-ul, adresa, suprafața sau geometria.</p> : null}
      {error ? <p className="gp-panel__note gp-panel__note--fail">{error}</p> : null}
      {history ? (
        <>
          <h3 className="gp-panel__eyebrow">Istoric modificări</h3>
          {history.length === 0 ? (
            <p className="gp-panel__note" data-testid="change-timeline-empty">
              Nicio modificare de la prima sincronizare a parcelei.
            </p>
          ) : (
            <ol className="gp-timeline" data-testid="change-timeline">
              {history.map((h, i) => (
                <li key={i}>
                  <span className="gp-muted">
                    {formatWhen(h.at, 'dateTimeMedium')} · {SOURCE_NAMES[h.source]}
                  </span>{' '}
                  <strong>{FIELD_NAMES[h.field] ?? h.field}</strong>
                  {h.before !== null || h.after !== null
                    ? `: ${h.before ?? '—'} → ${h.after ?? '—'}`
                    : PERSONAL_FIELDS.has(h.field)
                      ? ' (valorile nu sunt vizibile pentru contul dumneavoastră)'
                      : null}
                </li>
              ))}
            </ol>
          )}
        </>
      ) : null}
    </div>
  );
}
