/** Pieces the office tabs share: the outcome line of an action, the searchable table, row actions and the stacked form. */
import { useState, type ReactNode } from 'react';
import { foldName } from '../../../../domain/text/fold';

export type Outcome = { ok: boolean; text: string } | null;

export function OutcomeLine({ outcome }: { outcome: Outcome }) {
  if (!outcome) return null;
  return (
    <p className={outcome.ok ? 'office-ok' : 'office-error'} role={outcome.ok ? 'status' : 'alert'}>
      {outcome.text}
    </p>
  );
}

/** Items whose listed fields contain the query (case-insensitive); all when the query is blank. */
/** Diacritic- and case-insensitive ("stefanescu" finds "Ștefănescu"), with the project's one fold. */
export function filterByText<T>(items: T[], q: string, fields: (item: T) => Array<string | null>): T[] {
  const needle = foldName(q);
  return needle ? items.filter((i) => fields(i).some((v) => v !== null && foldName(v).includes(needle))) : items;
}

/** A list's search: the query and the items whose listed fields contain it (filterByText). */
export function useSearch<T>(items: T[], fields: (item: T) => Array<string | null>) {
  const [q, setQ] = useState('');
  return { q, setQ, total: items.length, visible: filterByText(items, q, fields) };
}

/**
 * Search box, the empty states (nothing at all / nothing matching) and the office table with its
 * head; the caller gives the rows. The card holds the title.
 */
export function SearchableTable<T>(props: {
  search: ReturnType<typeof useSearch<T>>;
  /** The search box's placeholder, then the empty list's and the no-match line's text. */
  texts: [placeholder: string, empty: string, noMatch: string];
  testId: string;
  /** Column heads; an empty one for the actions column. */
  headers: string[];
  children: ReactNode;
}) {
  const { q, setQ, total, visible } = props.search;
  const [placeholder, empty, noMatch] = props.texts;
  return (
    <>
      <input className="office-search" type="search" placeholder={placeholder} value={q} onChange={(e) => setQ(e.target.value)} aria-label={placeholder} />
      {visible.length === 0 ? (
        <p className="office-muted">{total ? noMatch : empty}</p>
      ) : (
        <table className="office-table" data-testid={props.testId}>
          <thead>
            <tr>
              {props.headers.map((h, i) => (
                <th key={i}>{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>{props.children}</tbody>
        </table>
      )}
    </>
  );
}

/** The last cell of an office row: change the item, or delete it. */
export function RowActions({ editLabel, onEdit, onRemove }: { editLabel: string; onEdit: () => void; onRemove: () => void }) {
  return (
    <td>
      <button className="btn btn--link" onClick={onEdit}>{editLabel}</button>
      <button className="btn btn--link" onClick={onRemove}>Șterge</button>
    </td>
  );
}

/** The stacked office form; submitting runs `onSave` without a page navigation. */
export function StackForm({ onSave, children }: { onSave: () => Promise<void>; children: ReactNode }) {
  return (
    <form
      className="office-form office-form--stack"
      onSubmit={(e) => {
        e.preventDefault();
        void onSave();
      }}
    >
      {children}
    </form>
  );
}
