/**
 * The card of a UAT the map shows (a search hit, a followed UAT's link): follow it through the
 * one watchlist API, narrow the search to it, open it in QGIS (the ready project), and, when the
 * store holds none of its parcels, say so with a link to sync it instead of an empty map without
 * a word.
 */
import { FollowButton } from '../notifications/WatchPanel';
import { QgisProjectHint, QgisProjectLink } from '../tools/QgisProjectLink';

export interface UatCardState {
  siruta: number;
  name: string;
  county: string | null;
  /** Whether the store holds any parcel of the UAT (undefined: not known yet). */
  synced?: boolean;
  /** What the map shows: the UAT, its county (no box of its own yet) or nothing it could find. */
  bboxOf?: 'uat' | 'parcels' | 'county' | 'none';
}

export function UatCard({
  state,
  central,
  filtered,
  onFilter,
  onClose,
}: {
  state: UatCardState;
  /** Central API users cannot start a local sync (spec 5.9): no sync link for them. */
  central: boolean;
  /** The search is already narrowed to this UAT. */
  filtered: boolean;
  onFilter: () => void;
  onClose: () => void;
}) {
  const syncUrl = `/parcel-sync?${new URLSearchParams({ siruta: String(state.siruta) })}`;
  return (
    <aside className="gp-panel" data-testid="uat-card" aria-label={`UAT ${state.name}`}>
      <header className="gp-panel__head">
        <div>
          <p className="gp-panel__eyebrow">UAT{state.county ? ` · județul ${state.county}` : ''}</p>
          <h2 className="gp-panel__title" data-testid="uat-card-title">
            {state.name}
          </h2>
        </div>
        <button type="button" className="gp-panel__close" aria-label="Închide" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="gp-panel__actions">
        <FollowButton target={{ siruta: state.siruta }} label={{ on: 'Nu mai urmări UAT-ul', off: 'Urmărește UAT-ul' }} />
        <button type="button" className="gp-btn" disabled={filtered} onClick={onFilter} data-testid="uat-card-filter">
          {filtered ? 'Căutarea este restrânsă aici' : 'Caută doar în acest UAT'}
        </button>
        {state.synced === false ? null : <QgisProjectLink siruta={state.siruta} name={state.name} className="gp-btn" />}
      </div>
      {state.synced === false ? (
        <p className="gp-panel__notice" data-testid="unsynced-hint">
          {state.bboxOf === 'county'
            ? `${state.name} nu are încă limită în baza locală; harta arată județul. `
            : state.bboxOf === 'none'
              ? `${state.name} nu are încă limită în baza locală, deci harta nu îl poate arăta. `
              : ''}
          UAT-ul nu este sincronizat: baza locală nu are nicio parcelă a lui, de aceea harta este goală aici.{' '}
          {central ? (
            'Datele lui vin din API-ul central.'
          ) : (
            <a href={syncUrl} data-testid="unsynced-sync-link">
              Sincronizați-l din Parcel Sync
            </a>
          )}
        </p>
      ) : null}
      {state.synced === false ? null : (
        <p className="gp-panel__note">
          <QgisProjectHint />
        </p>
      )}
      <p className="gp-panel__note">
        SIRUTA {state.siruta} ·{' '}
        <a href={`/parcel-sync/dashboard?${new URLSearchParams({ siruta: String(state.siruta) })}`}>Tablou UAT</a>
      </p>
    </aside>
  );
}
