/**
 * The one UAT picker of the parcel-sync pages (Sincronizare, Căutare cadastrală, Tablou UAT,
 * Export): an autocomplete over the UAT catalogue of the local store (`GET /api/landreg/uats`,
 * loaded once per page on first focus), 12 results, 600 ms debounce, diacritic- and
 * case-insensitive on name, county or SIRUTA (./uatSearch). Controlled: the parent owns the
 * picked UAT. With `name`, a hidden input carries the SIRUTA code inside a plain <form>.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { UAT_DEBOUNCE_MS, searchUats, type UatChoice } from './uatSearch';
import { countOf } from '../../lib/words';
import { api } from '../../lib/api';


// One catalogue request per page, whichever picker asks first.
let catalogue: Promise<UatChoice[]> | null = null;

async function loadCatalogue(): Promise<UatChoice[]> {
  return (await api.get<{ items: UatChoice[] }>('/api/landreg/uats', { query: { features: true } })).items;
}

function catalogueOnce(): Promise<UatChoice[]> {
  catalogue ??= loadCatalogue().catch((err: unknown) => {
    catalogue = null; // a later focus tries again
    throw err;
  });
  return catalogue;
}

export interface UatPickerProps {
  value: UatChoice | null;
  onPick: (u: UatChoice | null) => void;
  /** Name of a hidden input holding the picked SIRUTA code (for GET forms). */
  name?: string;
  label?: string;
  className?: string;
}

export function UatPicker({ value, onPick, name, label = 'UAT', className }: UatPickerProps) {
  const [text, setText] = useState(value?.name ?? '');
  const [query, setQuery] = useState('');
  const [all, setAll] = useState<UatChoice[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  // A new value from outside (another page's link, a navigation) shows its name.
  useEffect(() => {
    if (value) setText(value.name);
  }, [value]);

  const load = () => {
    if (all) return;
    setLoadError(null);
    catalogueOnce().then(setAll, (err: Error) => setLoadError(err.message));
  };

  // 600 ms after the last keystroke, search.
  useEffect(() => {
    const t = setTimeout(() => setQuery(text), UAT_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);

  const results = useMemo(() => (all ? searchUats(all, query) : []), [all, query]);
  useEffect(() => setActive(0), [results]);
  const typed = text.trim() !== '';
  const pending = typed && (text !== query || all === null);
  const showList = open && typed && !(value && text === value.name);

  const pick = (u: UatChoice) => {
    onPick(u);
    setText(u.name);
    setQuery(u.name);
    setOpen(false);
  };

  const clear = () => {
    onPick(null);
    setText('');
    setQuery('');
    input.current?.focus();
  };

  return (
    <div className={`field uat-picker${className ? ` ${className}` : ''}`}>
      <label className="field__label" htmlFor={`${id}-input`}>
        {label}
      </label>
      <div className="uat-picker__box">
        <svg className="uat-picker__icon" viewBox="0 0 20 20" aria-hidden="true">
          <circle cx="8.5" cy="8.5" r="5.5" />
          <path d="M13 13l4 4" />
        </svg>
        <input
          ref={input}
          id={`${id}-input`}
          className="input uat-picker__input"
          role="combobox"
          aria-expanded={showList}
          aria-controls={`${id}-list`}
          aria-autocomplete="list"
          autoComplete="off"
          spellCheck={false}
          placeholder="Nume, județ sau SIRUTA"
          value={text}
          data-testid="uat-picker"
          onFocus={() => {
            load();
            setOpen(true);
          }}
          onBlur={() => setTimeout(() => setOpen(false), 150)}
          onChange={(e) => {
            setText(e.target.value);
            setOpen(true);
            if (value) onPick(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              setOpen(true);
              setActive((a) => Math.min(a + 1, results.length - 1));
            } else if (e.key === 'ArrowUp') {
              e.preventDefault();
              setActive((a) => Math.max(a - 1, 0));
            } else if (e.key === 'Enter' && showList && !pending && results[active]) {
              e.preventDefault();
              pick(results[active]);
            } else if (e.key === 'Escape') setOpen(false);
          }}
        />
        {text !== '' && (
          <button type="button" className="uat-picker__clear" aria-label="Golește UAT-ul ales" onClick={clear}>
            ×
          </button>
        )}
      </div>
      {name && <input type="hidden" name={name} value={value?.siruta ?? ''} />}
      {showList && (
        <ul id={`${id}-list`} className="uat-picker__list" role="listbox" aria-label="UAT-uri găsite" data-testid="uat-results">
          {loadError ? (
            <li className="uat-picker__empty uat-picker__empty--fail">{loadError}</li>
          ) : pending ? (
            <li className="uat-picker__empty">{all === null ? 'Se încarcă lista UAT-urilor…' : 'Se caută…'}</li>
          ) : results.length === 0 ? (
            <li className="uat-picker__empty">Niciun UAT găsit pentru „{query.trim()}”.</li>
          ) : (
            results.map((u, i) => (
              <li
                key={u.siruta}
                role="option"
                aria-selected={i === active}
                className={`uat-picker__option${i === active ? ' is-active' : ''}`}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(u);
                }}
                onMouseEnter={() => setActive(i)}
              >
                <span className="uat-picker__name">{u.name}</span>
                <span className="uat-picker__meta">
                  {u.county ? `jud. ${u.county} · ` : ''}SIRUTA {u.siruta}
                </span>
                <span className={`uat-picker__count${u.featureCount ? '' : ' is-empty'}`}>{u.featureCount ? countOf(u.featureCount, 'obiect', 'obiecte') : 'nesincronizat'}</span>
              </li>
            ))
          )}
        </ul>
      )}
      {all && all.length === 0 && <p className="field__hint">Catalogul UAT este gol: conectați-vă la portal, iar lista județelor se încarcă automat.</p>}
    </div>
  );
}

/** The line under a picker: which UAT is chosen and what the local store holds for it. */
export function UatSummary({ uat }: { uat: UatChoice }) {
  return (
    <p className="uat-summary" data-testid="uat-picked">
      <strong>{uat.name}</strong>
      {uat.county ? `, județul ${uat.county}` : ''} · SIRUTA {uat.siruta} ·{' '}
      {uat.parcels !== undefined
        ? uat.parcels > 0
          ? `${countOf(uat.parcels, 'parcelă', 'parcele')} în baza locală`
          : 'nicio parcelă în baza locală'
        : uat.featureCount
          ? `${countOf(uat.featureCount, 'obiect', 'obiecte')} în baza locală`
          : 'încă nesincronizat'}
    </p>
  );
}
