/**
 * Follow a whole UAT (the watchlist, `POST /api/watchlist {siruta}`): its follower gets one
 * notification per UAT and sync or enrichment batch that changed its parcels
 * (docs/notifications.md). The state comes from `GET /api/watchlist`, so the button says whether
 * the UAT is followed already, from any page.
 */
import { useEffect, useState } from 'react';
import { follow, loadWatchlist, unfollow } from '../../lib/notifications';

export function FollowUatButton({ siruta, name }: { siruta: number; name: string }) {
  // undefined: not known yet; null: not followed; a string: the watchlist item's id.
  const [watchId, setWatchId] = useState<string | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    setWatchId(undefined);
    setError(null);
    loadWatchlist().then(
      (r) => !stale && setWatchId(r.items.find((w) => w.kind === 'uat' && w.siruta === siruta)?.id ?? null),
      (err: Error) => !stale && setError(err.message),
    );
    return () => {
      stale = true;
    };
  }, [siruta]);

  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      if (watchId) {
        await unfollow(watchId);
        setWatchId(null);
      } else {
        setWatchId((await follow({ siruta })).item.id);
      }
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="follow-uat" data-testid="follow-uat">
      <button type="button" className={watchId ? 'btn btn--secondary' : 'btn btn--primary'} disabled={watchId === undefined || busy} onClick={() => void toggle()}>
        {watchId ? 'Nu mai urmări UAT-ul' : 'Urmărește UAT-ul'}
      </button>
      {watchId ? (
        <span className="muted" role="status">
          Urmăriți {name}: primiți o notificare când sincronizările sau îmbogățirile îi schimbă parcelele.
        </span>
      ) : null}
      {error ? (
        <span className="notice notice--fail" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
