/** Any path no route module claims: the shell's 404 page, with the top bar still in place. */
import type { MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { ErrorPanel } from '../components/ErrorPanel';

export const meta: MetaFunction = () => [{ title: 'Pagina nu a fost găsită · Geoportal cadastral' }];

export function loader() {
  return data(null, { status: 404 });
}

export default function NotFound() {
  return (
    <ErrorPanel status={404} title="Pagina nu a fost găsită" message="Adresa cerută nu există sau a fost mutată." />
  );
}
