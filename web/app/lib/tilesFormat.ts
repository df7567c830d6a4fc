/** Romanian formatting of the tile monitor's figures (shared by the page and its tests). */
import { formatWhen } from './dates';
import { countOf } from './words';

export { formatBytes } from '../../../domain/text/bytes';

/** "acum 3 minute", "acum 2 ore", "acum 5 zile". */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const unit = (n: number, one: string, many: string) => `acum ${countOf(n, one, many)}`;
  if (seconds < 60) return 'acum câteva secunde';
  if (seconds < 3600) return unit(Math.floor(seconds / 60), 'minut', 'minute');
  if (seconds < 86400) return unit(Math.floor(seconds / 3600), 'oră', 'ore');
  return unit(Math.floor(seconds / 86400), 'zi', 'zile');
}

export function formatDate(iso: string | null | undefined): string {
  return formatWhen(iso, 'dateTimeMediumSeconds');
}

export const BUILD_STATUS_LABEL: Record<string, string> = {
  running: 'în curs',
  done: 'reușită',
  failed: 'eșuată',
};

export const BUILD_PHASE_LABEL: Record<string, string> = {
  export: 'export MBTiles (GDAL)',
  convert: 'conversie PMTiles',
  upload: 'încărcare în stocare',
  done: 'gata',
};
