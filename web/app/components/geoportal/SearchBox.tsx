/**
 * Geoportal search: 300 ms debounce (spec section 8), results of three kinds, keyboard friendly,
 * optionally narrowed to one UAT with the one UAT picker (components/sync/UatPicker): a common
 * surname otherwise fills the page from the largest UATs. A failed search (429 under load, a 5xx)
 * says so in Romanian with a retry, instead of an empty list.
 */
import { useEffect, useRef, useState } from 'react';
import { searchPlaces, type SearchResult } from '../../lib/geoportal/api';
import { UatPicker } from '../sync/UatPicker';
import type { UatChoice } from '../sync/uatSearch';

export const SEARCH_DEBOUNCE_MS = 300;

const KIND_LABEL: Record<SearchResult['kind'], string> = { uat: 'UAT', parcel: 'Parcelă', owner: 'Proprietar' };

/** `central`: parcels come from the central API's search (spec 4.2). */
export function SearchBox({
  onPick,
  central = false,
  uat,
  onUat,
}: {
  onPick: (r: SearchResult) => void;
  central?: boolean;
  /** The UAT the search is narrowed to (null: everywhere). */
  uat: UatChoice | null;
  onUat: (u: UatChoice | null) => void;
}) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[]>([]);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [attempt, setAttempt] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const siruta = uat?.siruta;

  useEffect(() => {
    const text = q.trim();
    if (!text) {
      setResults([]);
      setError(null);
      return;
    }
    const timer = setTimeout(() => {
      abort.current?.abort();
      const ctl = new AbortController();
      abort.current = ctl;
      setBusy(true);
      searchPlaces(text, ctl.signal, central, siruta)
        .then((r) => {
          setResults(r.results);
          setError(null);
          setActive(0);
          setOpen(true);
        })
        .catch((err: Error) => {
          if (err.name === 'AbortError') return;
          setResults([]);
          setError(err.message);
          setOpen(true);
        })
        .finally(() => setBusy(false));
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q, central, siruta, attempt]);

  const pick = (r: SearchResult) => {
    setOpen(false);
    onPick(r);
  };

  return (
    <div className="gp-search-wrap">
      {/* Above the search box, so the search's result list never covers it. */}
      <UatPicker value={uat} onPick={onUat} label="Doar în UAT" className="gp-uat-filter" />
      <div className="gp-search" role="search">
        <svg className="gp-search__icon" viewBox="0 0 20 20" aria-hidden="true">
          <circle cx="8.5" cy="8.5" r="5.5" />
          <path d="M13 13l4.5 4.5" />
        </svg>
        <input
          type="search"
          className="gp-search__input"
          placeholder={uat ? `Caută în ${uat.name}: nr. cadastral sau proprietar` : 'Caută UAT, nr. cadastral sau proprietar'}
          aria-label="Căutare în geoportal"
          data-testid="geoportal-search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onFocus={() => (results.length || error) && setOpen(true)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, results.length - 1));
            else if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
            else if (e.key === 'Enter' && results[active]) pick(results[active]);
            else if (e.key === 'Escape') setOpen(false);
          }}
        />
        {busy ? <span className="gp-search__spinner" aria-hidden="true" /> : null}
        {open && q.trim() ? (
          <ul className="gp-search__results" role="listbox" data-testid="geoportal-search-results">
            {error ? (
              <li className="gp-search__empty gp-search__empty--fail" data-testid="geoportal-search-error">
                {error}{' '}
                <button type="button" className="gp-btn gp-btn--small" data-testid="geoportal-search-retry" onClick={() => setAttempt((n) => n + 1)}>
                  Reîncearcă
                </button>
              </li>
            ) : null}
            {!error && results.length === 0 && !busy ? (
              <li className="gp-search__empty">
                Niciun rezultat pentru „{q.trim()}”{uat ? ` în ${uat.name}` : ''}.
              </li>
            ) : null}
            {results.map((r, i) => (
              <li key={`${r.kind}-${r.featureId ?? r.siruta}-${i}`} role="option" aria-selected={i === active} className="gp-search__row">
                <button
                  type="button"
                  className={i === active ? 'gp-search__hit is-active' : 'gp-search__hit'}
                  onMouseEnter={() => setActive(i)}
                  onClick={() => pick(r)}
                >
                  <span className={`gp-kind gp-kind--${r.kind}`}>{KIND_LABEL[r.kind]}</span>
                  <span className="gp-search__label">{r.label}</span>
                  {r.kind !== 'uat' && r.county ? <span className="gp-search__county">jud. {r.county}</span> : null}
                </button>
                {r.kind === 'uat' ? (
                  <button
                    type="button"
                    className="gp-btn gp-btn--small gp-btn--quiet"
                    title={`Caută parcele și proprietari doar în ${r.uatName ?? r.label}`}
                    data-testid="search-in-uat"
                    onClick={() => {
                      onUat({ siruta: r.siruta, name: r.uatName ?? r.label, county: r.county });
                      setOpen(false);
                    }}
                  >
                    Caută aici
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
