/**
 * /instrumente/dwg (spec 1.7, 4.7): drop a DWG, convert it to DXF through POST /api/dwg/convert
 * (the conversion sidecar), download the DXF and see what it holds (the entity counts the API
 * sends in X-Dxf-Entities / X-Dxf-Entity-Types).
 */
import { useEffect, useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import toolsCss from '../styles/tools.css?url';
import { requireSession } from '../lib/auth.server';
import { ToolsLayout } from '../components/tools/ToolsLayout';
import { FileDrop } from '../components/tools/FileDrop';
import { formatBytes } from '../lib/tilesFormat';
import { dwgRelease, parseEntityTypes } from '../../../domain/dwg/rules';
import { Card } from '../components/Card';
import { ApiError, apiFetch } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'DWG → DXF · Instrumente · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: toolsCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireSession(request, context);
  const health = await context.services.dwg.health();
  return { available: health.ok };
}

/** Romanian names of the DXF entity types a drawing usually holds; others keep their DXF name. */
const ENTITY_LABELS: Record<string, string> = {
  LINE: 'Linii',
  LWPOLYLINE: 'Polilinii',
  POLYLINE: 'Polilinii (vechi)',
  CIRCLE: 'Cercuri',
  ARC: 'Arce',
  ELLIPSE: 'Elipse',
  SPLINE: 'Curbe spline',
  POINT: 'Puncte',
  TEXT: 'Texte',
  MTEXT: 'Texte pe mai multe rânduri',
  INSERT: 'Blocuri inserate',
  HATCH: 'Hașuri',
  DIMENSION: 'Cote',
  SOLID: 'Suprafețe pline',
  '3DFACE': 'Fețe 3D',
  LEADER: 'Indicatoare',
  VIEWPORT: 'Ferestre de vizualizare',
};

interface Result {
  url: string;
  fileName: string;
  size: number;
  entities: number;
  types: Record<string, number>;
  version: string;
  warnings: number;
}

interface Failure {
  message: string;
  hint?: string;
}

/** The exact name from `filename*=UTF-8''…` (RFC 6266), else the ASCII fallback. */
function attachmentName(header: string | null, fallback: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header ?? '');
  if (star) return decodeURIComponent(star[1]);
  const plain = /filename="([^"]*)"/i.exec(header ?? '');
  return plain?.[1] || fallback;
}

export default function DwgToDxf() {
  const { available } = useLoaderData<typeof loader>();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);

  // The previous download link's object URL is released when a new result replaces it.
  useEffect(() => () => {
    if (result) URL.revokeObjectURL(result.url);
  }, [result]);

  const choose = (f: File | null) => {
    setFile(f);
    setResult(null);
    setFailure(null);
  };

  const convert = async () => {
    if (!file) return;
    setBusy(true);
    setFailure(null);
    setResult(null);
    try {
      const form = new FormData();
      form.append('file', file, file.name);
      const res = await apiFetch('post', '/api/dwg/convert', { form });
      const blob = await res.blob();
      setResult({
        url: URL.createObjectURL(blob),
        fileName: attachmentName(res.headers.get('content-disposition'), 'desen.dxf'),
        size: blob.size,
        entities: Number(res.headers.get('x-dxf-entities') ?? 0),
        types: parseEntityTypes(res.headers.get('x-dxf-entity-types')),
        version: res.headers.get('x-dwg-version') ?? '',
        warnings: Number(res.headers.get('x-dwg-warnings') ?? 0),
      });
    } catch (err) {
      if (err instanceof ApiError && err.status > 0) setFailure({ message: err.message, hint: err.body?.hint as string | undefined });
      else setFailure({ message: 'Nu s-a putut trimite fișierul. Verificați conexiunea și încercați din nou.' });
    } finally {
      setBusy(false);
    }
  };

  const release = result?.version ? dwgRelease(result.version) : undefined;

  return (
    <ToolsLayout
      active="dwg"
      title="Conversie DWG → DXF"
      sub="Transformați desenele AutoCAD (DWG) în DXF, formatul deschis pe care îl citesc QGIS, GDAL și majoritatea programelor de proiectare."
    >
      <div className="dwg-body">
        {!available && (
          <p className="dwg-error" role="alert" data-testid="dwg-unavailable">
            Serviciul de conversie DWG nu este disponibil momentan. Încercați din nou peste câteva minute.
          </p>
        )}
        <Card>
          <FileDrop
            id="dwg-file"
            accept=".dwg,image/vnd.dwg,application/acad"
            what="desenul DWG"
            note="AutoCAD R13–2018, cel mult 500 MB. Fișierul este convertit pe server și nu este păstrat."
            file={file}
            onFile={choose}
            disabled={busy}
          />
          <div className="dwg-actions">
            <button type="button" className="btn btn--primary" disabled={!file || busy} onClick={convert} data-testid="dwg-convert">
              {busy ? 'Se convertește…' : 'Convertește în DXF'}
            </button>
            {busy && (
              <span className="dwg-status" role="status">
                Conversia poate dura până la două minute pentru desenele mari.
              </span>
            )}
          </div>
        </Card>

        {failure && (
          <div className="dwg-error" role="alert" data-testid="dwg-error">
            <p>{failure.message}</p>
            {failure.hint && <p>{failure.hint}</p>}
          </div>
        )}

        {result && (
          <Card
            title="Conversie reușită"
            testId="dwg-result"
            actions={
              <a className="btn btn--primary" href={result.url} download={result.fileName} data-testid="dwg-download">
                Descarcă {result.fileName}
              </a>
            }
          >
            <dl className="facts">
              <div>
                <dt>Fișier DXF</dt>
                <dd>
                  {result.fileName} · {formatBytes(result.size)}
                </dd>
              </div>
              <div>
                <dt>Versiune DWG</dt>
                <dd>{release ? `AutoCAD ${release} (${result.version})` : result.version}</dd>
              </div>
              {result.warnings > 0 && (
                <div>
                  <dt>Atenție</dt>
                  <dd>Desenul avea mici defecte (de exemplu sume de control greșite); verificați DXF-ul înainte de folosire.</dd>
                </div>
              )}
            </dl>
            <table className="dwg-counts" data-testid="dwg-counts">
              <thead>
                <tr>
                  <th>Tip de entitate</th>
                  <th>Număr</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(result.types).map(([type, n]) => (
                  <tr key={type}>
                    <td>
                      {ENTITY_LABELS[type] ?? type} <span className="dwg-status">({type})</span>
                    </td>
                    <td>{n}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <td>Total entități</td>
                  <td data-testid="dwg-total">{result.entities}</td>
                </tr>
              </tfoot>
            </table>
          </Card>
        )}
      </div>
    </ToolsLayout>
  );
}
