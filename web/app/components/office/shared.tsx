/** Pieces the three office tabs share: the outcome line of an action and a searchable list head. */
import type { ReactNode } from 'react';
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

/** Search box and the empty states (nothing at all / nothing matching) before a list; the card holds the title. */
export function SearchableList(props: {
  total: number;
  shown: number;
  q: string;
  onQ: (q: string) => void;
  placeholder: string;
  empty: string;
  noMatch: string;
  children: ReactNode;
}) {
  return (
    <>
      <input className="office-search" type="search" placeholder={props.placeholder} value={props.q} onChange={(e) => props.onQ(e.target.value)} aria-label={props.placeholder} />
      {props.shown === 0 ? <p className="office-muted">{props.total ? props.noMatch : props.empty}</p> : props.children}
    </>
  );
}
