/** Geoportal search: 300 ms debounce (spec section 8), results of three kinds, keyboard friendly. */
import { useEffect, useRef, useState } from 'react';
import { searchPlaces, type SearchResult } from '../../lib/geoportal/api';

export const SEARCH_DEBOUNCE_MS = 300;

const KIND_LABEL: Record<SearchResult['kind'], string> = { uat: 'UAT', parcel: 'Parcelă', owner: 'Proprietar' };

/** `central`: parcels come from the central API's search (spec 4.2). */
export function SearchBox({ onPick, central = false }: { onPick: (r: SearchResult) => void; central?: boolean }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[]>([]);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const abort = useRef<AbortController | null>(null);

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
      searchPlaces(text, ctl.signal, central)
        .then((r) => {
          setResults(r.results);
          setError(null);
          setActive(0);
          setOpen(true);
        })
        .catch((err: Error) => {
          if (err.name !== 'AbortError') setError(err.message);
        })
        .finally(() => setBusy(false));
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q, central]);

  const pick = (r: SearchResult) => {
    setOpen(false);
    onPick(r);
  };

  return (
    <div className="gp-search" role="search">
      <svg className="gp-search__icon" viewBox="0 0 20 20" aria-hidden="true">
        <circle cx="8.5" cy="8.5" r="5.5" />
        <path d="M13 13l4.5 4.5" />
      </svg>
      <input
        type="search"
        className="gp-search__input"
        placeholder="Caută UAT, număr cadastral sau proprietar"
        aria-label="Căutare în geoportal"
        data-testid="geoportal-search"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onFocus={() => results.length && setOpen(true)}
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
          {error ? <li className="gp-search__empty">{error}</li> : null}
          {!error && results.length === 0 && !busy ? <li className="gp-search__empty">Niciun rezultat pentru „{q.trim()}”.</li> : null}
          {results.map((r, i) => (
            <li key={`${r.kind}-${r.featureId ?? r.siruta}-${i}`} role="option" aria-selected={i === active}>
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
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
