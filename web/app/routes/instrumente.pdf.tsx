/**
 * /instrumente/pdf (spec 1.7, 4.7): compress a PDF (local levels with Ghostscript and qpdf, or
 * the cloud levels of the PDF service) and unlock a password-protected one. Everything goes
 * through the API routes (`POST /api/compress-pdf`, `POST /api/pdf/unlock`); the page shows both
 * sizes from the answer's headers and offers the file for download.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import parcelSyncCss from '../styles/parcel-sync.css?url';
import pdfToolsCss from '../styles/pdf-tools.css?url';
import toolsCss from '../styles/tools.css?url';
import { FileDrop } from '../components/tools/FileDrop';
import { requireSession } from '../lib/auth.server';
import { ToolsLayout } from '../components/tools/ToolsLayout';
import { Card } from '../components/Card';
import { ApiError, apiFetch } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'PDF · Instrumente · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: parcelSyncCss },
  { rel: 'stylesheet', href: toolsCss },
  { rel: 'stylesheet', href: pdfToolsCss },
];

export function loader({ request, context }: LoaderFunctionArgs) {
  requireSession(request, context);
  return null;
}

interface LevelOption {
  id: string;
  level: string;
  mode: 'local' | 'cloud';
  label: string;
  text: string;
}

const LEVELS: LevelOption[] = [
  { id: 'balanced', level: 'balanced', mode: 'local', label: 'Echilibrat', text: 'Imagini la 150 DPI, calitate bună. Potrivit pentru majoritatea documentelor.' },
  { id: 'high', level: 'high', mode: 'local', label: 'Puternic', text: 'Imagini la 110 DPI. Fișier mai mic, încă lizibil pe ecran.' },
  { id: 'extreme', level: 'extreme', mode: 'local', label: 'Extrem', text: 'Imagini la 72 DPI, calitate JPEG redusă. Pentru limite stricte de mărime.' },
  { id: 'lossless', level: 'lossless', mode: 'local', label: 'Fără pierderi', text: 'Doar structura fișierului este optimizată; imaginile și textul rămân identice.' },
  { id: 'cloud-low', level: 'low', mode: 'cloud', label: 'Cloud · ușor', text: 'Prin serviciul PDF din cloud; păstrează cea mai bună calitate.' },
  { id: 'cloud-recommended', level: 'recommended', mode: 'cloud', label: 'Cloud · recomandat', text: 'Prin serviciul PDF din cloud; echilibru între mărime și calitate.' },
  { id: 'cloud-extreme', level: 'extreme', mode: 'cloud', label: 'Cloud · extrem', text: 'Prin serviciul PDF din cloud; cel mai mic fișier.' },
];

interface Download {
  href: string;
  name: string;
}

interface Sizes {
  original: number;
  compressed: number;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toLocaleString('ro-RO', { maximumFractionDigits: 1 })} KB`;
  return `${(n / (1024 * 1024)).toLocaleString('ro-RO', { maximumFractionDigits: 2 })} MB`;
}

/** The attachment name of an answer (RFC 6266 `filename*` first). */
function attachmentName(res: Response, fallback: string): string {
  const cd = res.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(cd)?.[1];
  if (star) return decodeURIComponent(star);
  return /filename="([^"]+)"/i.exec(cd)?.[1] ?? fallback;
}

/**
 * One tool's call: posts the multipart form, keeps the answered PDF as an object URL (freeing the
 * previous one) and the Romanian error of a failure.
 */
function usePdfCall() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [download, setDownloadState] = useState<Download | null>(null);
  const current = useRef<Download | null>(null);
  useEffect(() => () => {
    if (current.current) URL.revokeObjectURL(current.current.href);
  }, []);
  const setDownload = (d: Download | null) => {
    if (current.current) URL.revokeObjectURL(current.current.href);
    current.current = d;
    setDownloadState(d);
  };
  const reset = () => {
    setError(null);
    setDownload(null);
  };
  /** Answers the response headers on success, null on failure (the error is then shown). */
  async function send(path: '/api/compress-pdf' | '/api/pdf/unlock', fields: Record<string, string>, file: File, fallbackName: string): Promise<Headers | null> {
    setBusy(true);
    reset();
    try {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', file, file.name);
      const res = await apiFetch('post', path, { form });
      const blob = await res.blob();
      setDownload({ href: URL.createObjectURL(blob), name: attachmentName(res, fallbackName) });
      return res.headers;
    } catch (err) {
      // Status 0: the request never reached the server; a TypeError: the answer broke off mid-download.
      if ((err instanceof ApiError && err.status === 0) || err instanceof TypeError) setError('Conexiunea cu serverul s-a întrerupt.');
      // The PDF service's hint (e.g. what to do with a damaged file) belongs with its message.
      else if (err instanceof ApiError) setError([err.message, err.body?.hint].filter(Boolean).join(' '));
      else setError((err as Error).message);
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, download, send, reset };
}

function ErrorNotice({ error }: { error: string | null }) {
  return error ? (
    <p className="notice notice--fail" role="alert">
      {error}
    </p>
  ) : null;
}

function DownloadLink({ download }: { download: Download }) {
  return (
    <a className="btn btn--primary" href={download.href} download={download.name}>
      Descarcă {download.name}
    </a>
  );
}

const PDF_ACCEPT = 'application/pdf,.pdf';

function CompressCard() {
  const [file, setFile] = useState<File | null>(null);
  const [choice, setChoice] = useState('balanced');
  const [sizes, setSizes] = useState<Sizes | null>(null);
  const { busy, error, download, send, reset } = usePdfCall();

  const pickFile = (f: File | null) => {
    setFile(f);
    setSizes(null);
    reset();
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file) return;
    const option = LEVELS.find((l) => l.id === choice)!;
    setSizes(null);
    const headers = await send('/api/compress-pdf', { level: option.level, mode: option.mode }, file, 'document-comprimat.pdf');
    if (headers) setSizes({ original: Number(headers.get('x-original-size')), compressed: Number(headers.get('x-compressed-size')) });
  }

  const saving = sizes && sizes.original > 0 ? Math.round((1 - sizes.compressed / sizes.original) * 1000) / 10 : 0;

  return (
    <Card className="pdf-card" title="Comprimare PDF">
      <form onSubmit={submit} className="pdf-form">
        <FileDrop id="pdf-compress-file" accept={PDF_ACCEPT} what="fișierul PDF" note="Cel mult 500 MB" file={file} onFile={pickFile} disabled={busy} />
        <fieldset className="pdf-levels" disabled={busy}>
          <legend className="field__label">Nivel de comprimare</legend>
          {LEVELS.map((l) => (
            <label key={l.id} className={`pdf-level${choice === l.id ? ' pdf-level--active' : ''}`}>
              <input type="radio" name="level" value={l.id} checked={choice === l.id} onChange={() => setChoice(l.id)} />
              <span className="pdf-level__text">
                <strong>{l.label}</strong>
                <small>{l.text}</small>
              </span>
            </label>
          ))}
        </fieldset>
        <p className="field__hint">
          Nivelurile locale rulează pe serverul biroului; cele din cloud trimit fișierul la serviciul PDF extern. Rezultatul nu este niciodată mai mare
          decât originalul: dacă nu se câștigă nimic, primiți fișierul inițial.
        </p>
        <div className="pdf-actions">
          <button type="submit" className="btn btn--primary" disabled={!file || busy} data-testid="pdf-compress-submit">
            {busy ? 'Se comprimă…' : 'Comprimă'}
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      {sizes && download ? (
        <div className="pdf-result" data-testid="pdf-compress-result">
          <div className="stats">
            <div className="stat">
              <span className="stat__label">Original</span>
              <span className="stat__value">{formatBytes(sizes.original)}</span>
            </div>
            <div className="stat">
              <span className="stat__label">Comprimat</span>
              <span className="stat__value">{formatBytes(sizes.compressed)}</span>
            </div>
            <div className="stat">
              <span className="stat__label">Economie</span>
              <span className="stat__value">{saving.toLocaleString('ro-RO')}%</span>
            </div>
          </div>
          {sizes.compressed >= sizes.original ? <p className="notice notice--warn">Fișierul nu a putut fi micșorat; descărcați originalul neschimbat.</p> : null}
          <DownloadLink download={download} />
        </div>
      ) : null}
    </Card>
  );
}

function UnlockCard() {
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState('');
  const { busy, error, download, send, reset } = usePdfCall();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file || !password) return;
    if (await send('/api/pdf/unlock', { password }, file, 'document-deblocat.pdf')) setPassword('');
  }

  return (
    <Card className="pdf-card" title="Deblocare PDF" titleId="pdf-unlock-title">
      <p className="field__hint">Elimină parola unui PDF protejat (prin serviciul PDF din cloud), ca să-l puteți comprima sau tipări. Parola nu este păstrată.</p>
      <form onSubmit={submit} className="pdf-form">
        <FileDrop
          id="pdf-unlock-file"
          accept={PDF_ACCEPT}
          what="fișierul PDF"
          note="Cel mult 500 MB"
          file={file}
          onFile={(f) => {
            setFile(f);
            reset();
          }}
          disabled={busy}
        />
        <label className="field">
          <span className="field__label">Parola PDF-ului</span>
          <input className="input" type="password" autoComplete="off" value={password} onChange={(e) => setPassword(e.target.value)} disabled={busy} />
        </label>
        <div className="pdf-actions">
          <button type="submit" className="btn btn--primary" disabled={!file || !password || busy} data-testid="pdf-unlock-submit">
            {busy ? 'Se deblochează…' : 'Deblochează'}
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      {download ? (
        <div className="pdf-result" data-testid="pdf-unlock-result">
          <p className="notice notice--ok">PDF-ul a fost deblocat.</p>
          <DownloadLink download={download} />
        </div>
      ) : null}
    </Card>
  );
}

export default function PdfTools() {
  return (
    <ToolsLayout active="pdf" title="Instrumente PDF" sub="Comprimați documentele pentru depunere (limite de mărime) și deblocați PDF-urile protejate cu parolă.">
      <div className="pdf-grid">
        <CompressCard />
        <UnlockCard />
      </div>
    </ToolsLayout>
  );
}
