/** The names of the land-use codes a page shows (web/app/lib/landUse.ts), those it knows. */
import { landUseCodes, landUseName } from '../../lib/landUse';

export function LandUseLegend({ codes }: { codes: string | readonly string[] | null | undefined }) {
  const known = landUseCodes(codes)
    .map((code) => [code, landUseName(code)] as const)
    .filter((x): x is readonly [string, string] => x[1] !== null);
  if (known.length === 0) return null;
  return (
    <dl className="land-use-legend" data-testid="land-use-legend" aria-label="Legenda categoriilor de folosință">
      {known.map(([code, name]) => (
        <div key={code}>
          <dt>{code}</dt>
          <dd>{name}</dd>
        </div>
      ))}
    </dl>
  );
}
