/**
 * The download of the ready QGIS project (GET /api/qgis/project, docs/qgis.md "A ready project"):
 * a UAT's (the map's UAT card, the sync page's UAT) or the whole store's (/instrumente/qgis).
 * QGIS then asks for the token in the authentication entry the project names; the hint says where
 * to make one.
 */
import { apiUrl } from '../../lib/api';

export function QgisProjectLink({ siruta, name, className }: { siruta?: number; name?: string; className: string }) {
  const href = apiUrl('/api/qgis/project', {}, siruta === undefined ? undefined : { siruta });
  return (
    <a className={className} href={href} download data-testid="qgis-project-link" aria-label={name ? `Proiect QGIS pentru ${name} (.qgz)` : undefined}>
      Deschide în QGIS
    </a>
  );
}

/** One line under the link: what the file is and where the token comes from. */
export function QgisProjectHint() {
  return (
    <span>
      Proiect QGIS (.qgz) cu parcelele, clădirile și limitele, în Stereo 70; la deschidere QGIS cere un token personal, pe care îl creați în{' '}
      <a href="/instrumente/qgis">Acces QGIS</a>.
    </span>
  );
}
