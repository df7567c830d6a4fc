/**
 * Follow a whole UAT (the watchlist, `POST /api/watchlist {siruta}`): its follower gets one
 * notification per UAT and sync or enrichment batch that changed its parcels
 * (docs/notifications.md).
 */
import { useFollow } from './WatchPanel';

/** The UAT dashboard's follow button: the map's logic (`useFollow`), the dashboard's look. */
export function FollowUatButton({ siruta, name }: { siruta: number; name: string }) {
  const { watchId, busy, error, toggle } = useFollow({ siruta });

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
