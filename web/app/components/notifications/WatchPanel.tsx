/**
 * The follow button (a parcel in the panel, a UAT on the map) and a feature's change timeline:
 * every change the syncs and enrichments saw, for any parcel, followed or not
 * (docs/notifications.md "History").
 */
import { useEffect, useState } from 'react';
import { PERSONAL_ENRICHMENT_KEYS } from '../../../../domain/auth/rules';
import { formatWhen } from '../../lib/dates';
import { FIELD_NAMES, follow, loadHistory, loadWatchlist, unfollow, type HistoryItem } from '../../lib/notifications';

/** Who saw the change, as the timeline says it. */
/** Fields whose values the server withholds from viewers without the right (the viewer rule). */
const PERSONAL_FIELDS: ReadonlySet<string> = new Set<string>(PERSONAL_ENRICHMENT_KEYS);

const SOURCE_NAMES: Record<HistoryItem['source'], string> = { sync: 'sincronizare', enrichment: 'îmbogățire' };

/** What can be followed: a parcel (or any feature) by its uuid, or a whole UAT by its SIRUTA code. */
export type FollowTarget = { featureId: string } | { siruta: number };

/**
 * Whether `target` is followed, and the toggle, through the one watchlist API (`/api/watchlist`):
 * the state comes from `GET /api/watchlist`, so every page's button says whether it is followed.
 */
export function useFollow(target: FollowTarget) {
  // undefined: not known yet; null: not followed; a string: the watchlist item's id.
  const [watchId, setWatchId] = useState<string | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const featureId = 'featureId' in target ? target.featureId : null;
  const siruta = 'siruta' in target ? target.siruta : null;

  useEffect(() => {
    let stale = false;
    setWatchId(undefined);
    setError(null);
    loadWatchlist().then(
      (r) =>
        !stale &&
        setWatchId(r.items.find((w) => (featureId ? w.featureId === featureId : w.kind === 'uat' && w.siruta === siruta))?.id ?? null),
      (err: Error) => !stale && setError(err.message),
    );
    return () => {
      stale = true;
    };
  }, [featureId, siruta]);

  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      if (watchId) {
        await unfollow(watchId);
        setWatchId(null);
      } else {
        setWatchId((await follow(featureId ? { featureId } : { siruta: siruta! })).item.id);
      }
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return { watchId, busy, error, toggle, featureId };
}

/** "Urmărește" on the map: the same button for a parcel in the panel and for a UAT's card. */
export function FollowButton({ target, label }: { target: FollowTarget; label: { on: string; off: string } }) {
  const { watchId, busy, error, toggle, featureId } = useFollow(target);

  return (
    <>
      <button
        type="button"
        className={watchId ? 'gp-btn gp-btn--on' : 'gp-btn'}
        aria-pressed={!!watchId}
        disabled={watchId === undefined || busy}
        onClick={() => void toggle()}
        data-testid={featureId ? 'follow-button' : 'follow-uat-button'}
      >
        {watchId ? label.on : label.off}
      </button>
      {error ? <p className="gp-panel__note gp-panel__note--fail">{error}</p> : null}
    </>
  );
}

/** The feature's change timeline: every change the syncs and enrichments saw, followed or not. */
export function ChangeTimeline({ featureId }: { featureId: string }) {
  const [history, setHistory] = useState<HistoryItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    setHistory(null);
    setError(null);
    loadHistory(featureId).then(
      (r) => !stale && setHistory(r.items),
      (err: Error) => !stale && setError(err.message),
    );
    return () => {
      stale = true;
    };
  }, [featureId]);

  return (
    <div className="gp-watch" data-testid="watch-panel">
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
