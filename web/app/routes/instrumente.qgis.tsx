/**
 * /instrumente/qgis (issue 29, docs/qgis.md): the address QGIS and GDAL connect to (OGC API
 * Features under /ogc) and the user's personal access tokens: create one with a name and an
 * expiry (its secret shown once), see when each was last used, revoke it. An administrator also
 * sees every user's tokens with their owner and may revoke any (CONTRACT 6). Calls POST/DELETE
 * /api/tokens; the lists come from the loader and are read again after each change. The ready
 * QGIS project (GET /api/qgis/project) of one UAT or of the whole store is downloaded here too.
 */
import { useState, type FormEvent } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData, useRevalidator } from '@remix-run/react';
import officeCss from '../styles/office.css?url';
import toolsCss from '../styles/tools.css?url';
import { requireSession } from '../lib/auth.server';
import { ToolsLayout } from '../components/tools/ToolsLayout';
import { Card } from '../components/Card';
import { api } from '../lib/api';
import { qgisAccessPage } from '../lib/tokens.server';
import type { TokenSummary } from '../../../domain/auth/service';
import { formatWhen } from '../lib/dates';
import { QgisProjectLink } from '../components/tools/QgisProjectLink';
import { countOf } from '../lib/words';

export const meta: MetaFunction = () => [{ title: 'Acces QGIS · Utilitare · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: officeCss },
  { rel: 'stylesheet', href: toolsCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return qgisAccessPage(context, { userId: auth.user.id, isAdmin: auth.isAdmin });
}

const when = (iso: string | null) => (iso ? formatWhen(iso, 'dateTimeMedium') : 'niciodată');

export default function QgisAccess() {
  const { tokens, everyUsersTokens, ogcUrl, defaultDays, maxDays, identityDays, projectUats, authcfg } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const [name, setName] = useState('');
  const [days, setDays] = useState(String(defaultDays));
  const [created, setCreated] = useState<(TokenSummary & { token: string }) | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [projectSiruta, setProjectSiruta] = useState('');

  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const t = await api.post<TokenSummary & { token: string }>('/api/tokens', { body: { name, expiresInDays: Number(days) } });
      setCreated(t);
      setName('');
      setMessage(null);
      revalidator.revalidate();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };
  const revoke = async (t: TokenSummary) => {
    const whose = t.userEmail ? ` al utilizatorului ${t.userEmail}` : '';
    if (!window.confirm(`Revocați tokenul „${t.name}”${whose}? Programele care îl folosesc nu se vor mai putea conecta.`)) return;
    try {
      await api.delete('/api/tokens/{id}', { params: { id: t.id } });
      if (created?.id === t.id) setCreated(null);
      setMessage({ ok: true, text: `Tokenul „${t.name}” a fost revocat.` });
      revalidator.revalidate();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
  };

  return (
    <ToolsLayout
      active="qgis"
      title="Acces QGIS și GDAL"
      sub="Parcelele, clădirile, intravilanul și limitele UAT ca strat live în QGIS (OGC API Features), cu un token personal de acces."
    >
      <div className="office-grid">
        <Card title="Tokenuri de acces" testId="tokens-card">
          {tokens.length === 0 ? (
            <p className="office-muted">Nu aveți niciun token activ.</p>
          ) : (
            <TokensTable tokens={tokens} testId="tokens-table" revokeTestId={(t) => `revoke-${t.name}`} onRevoke={revoke} />
          )}
          {message && (
            <p className={message.ok ? 'office-ok' : 'office-error'} role={message.ok ? 'status' : 'alert'}>
              {message.text}
            </p>
          )}
        </Card>
        {everyUsersTokens && (
          <Card title="Tokenurile tuturor utilizatorilor" testId="all-tokens-card">
            {everyUsersTokens.length === 0 ? (
              <p className="office-muted">Niciun utilizator nu are un token activ.</p>
            ) : (
              <TokensTable tokens={everyUsersTokens} testId="all-tokens-table" revokeTestId={(t) => `revoke-any-${t.id}`} onRevoke={revoke} withOwner />
            )}
          </Card>
        )}
        <div style={{ display: 'grid', gap: 'var(--space-4)' }}>
          <Card title="Token nou">
            <form className="office-form office-form--stack" onSubmit={(e) => void create(e)}>
              <label>
                Nume
                <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} placeholder="QGIS birou" data-testid="token-name" />
              </label>
              <label>
                Valabil (zile, cel mult {maxDays})
                <input type="number" min={1} max={maxDays} value={days} onChange={(e) => setDays(e.target.value)} data-testid="token-days" />
              </label>
              <button type="submit" className="btn btn--primary" data-testid="token-create">
                Creează tokenul
              </button>
            </form>
            <p className="office-muted" data-testid="token-identity-note">
              Un token funcționează cât timp vă conectați în aplicație cel puțin o dată la {countOf(identityDays, 'zi', 'zile')}: astfel, drepturile
              schimbate între timp ajung și la QGIS.
            </p>
            {created && (
              <div role="status" data-testid="token-secret-box">
                <p>
                  <strong>Copiați acum tokenul „{created.name}”.</strong> Nu îl vom mai afișa: păstrăm doar o amprentă a lui.
                </p>
                <input readOnly value={created.token} onFocus={(e) => e.target.select()} data-testid="token-secret" style={{ width: '100%', fontFamily: 'monospace' }} />
                <div className="office-actions">
                  <button type="button" className="btn btn--secondary" onClick={() => void navigator.clipboard.writeText(created.token)}>
                    Copiază
                  </button>
                  <button type="button" className="btn btn--secondary" onClick={() => setCreated(null)}>
                    Am copiat, ascunde
                  </button>
                </div>
              </div>
            )}
          </Card>
          <Card title="Conectare din QGIS">
            <ol>
              <li>
                În QGIS: <em>Layer → Add Layer → Add WFS / OGC API - Features Layer</em>, apoi <em>New</em>.
              </li>
              <li>
                URL: <code data-testid="ogc-url">{ogcUrl}</code>
              </li>
              <li>
                La <em>Authentication</em> adăugați o configurație <em>API Header</em> (QGIS 3.24 sau mai nou) cu cheia <code>Authorization</code> și
                valoarea <code>Bearer &lt;token&gt;</code>; în QGIS 3.22, ArcGIS Pro sau FME alegeți <em>Basic</em>, cu orice nume de utilizator și
                tokenul ca parolă.
              </li>
              <li>Alegeți colecția (Parcele, Clădiri, Limite intravilan, Limite UAT) și sistemul de coordonate EPSG:3844 (Stereo 70).</li>
            </ol>
            <p className="office-muted">Tokenul are drepturile contului dumneavoastră, nimic în plus.</p>
          </Card>
          <Card title="Proiect QGIS gata făcut" testId="qgis-project-card">
            <p>
              Un fișier .qgz cu parcelele, clădirile, limitele de intravilan și limitele UAT ca straturi live, în Stereo 70 (EPSG:3844), colorate ca pe
              hartă și etichetate cu numărul cadastral.
            </p>
            <div className="office-form office-form--stack">
              <label>
                UAT
                <select value={projectSiruta} onChange={(e) => setProjectSiruta(e.target.value)} data-testid="qgis-project-uat">
                  <option value="">Toate UAT-urile din baza locală</option>
                  {projectUats.map((u) => (
                    <option key={u.siruta} value={String(u.siruta)}>
                      {u.name}
                      {u.county ? `, județul ${u.county}` : ''} · SIRUTA {u.siruta}
                    </option>
                  ))}
                </select>
              </label>
              <QgisProjectLink siruta={projectSiruta ? Number(projectSiruta) : undefined} className="btn btn--primary" />
            </div>
            <ol>
              <li>Creați un token (mai sus, la „Token nou”) și copiați-l.</li>
              <li>
                În QGIS: <em>Settings → Options → Authentication</em>, apăsați <em>+</em>. La <em>Id</em> apăsați lacătul și scrieți{' '}
                <code data-testid="qgis-authcfg">{authcfg}</code>, dați un nume, alegeți <em>Basic</em> cu orice nume de utilizator și tokenul ca parolă
                (în QGIS 3.24 sau mai nou merge și <em>API Header</em>: cheia <code>Authorization</code>, valoarea <code>Bearer &lt;token&gt;</code>). Salvați.
              </li>
              <li>Deschideți fișierul descărcat: straturile se încarcă din geoportal, doar pentru UAT-ul ales.</li>
            </ol>
            <p className="office-muted">Fișierul nu conține tokenul: îl puteți da unui coleg, care îl deschide cu propriul token.</p>
          </Card>
        </div>
      </div>
    </ToolsLayout>
  );
}

/** A list of tokens with their dates and a revoke button; `withOwner` adds the owner's e-mail (the administrator's list). */
function TokensTable<T extends TokenSummary & { userEmail?: string }>(props: {
  tokens: readonly T[];
  testId: string;
  revokeTestId: (t: T) => string;
  onRevoke: (t: T) => Promise<void>;
  withOwner?: boolean;
}) {
  const { tokens, testId, revokeTestId, onRevoke, withOwner } = props;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={withOwner ? 'Tokenurile tuturor utilizatorilor' : 'Tokenurile dumneavoastră'}>
      <table className="office-table" data-testid={testId}>
        <thead>
          <tr>
            <th>Nume</th>
            {withOwner ? <th>Utilizator</th> : null}
            <th>Creat</th>
            <th>Expiră</th>
            <th>Ultima folosire</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              {withOwner ? <td>{t.userEmail}</td> : null}
              <td>{when(t.createdAt)}</td>
              <td>{when(t.expiresAt)}</td>
              <td>{when(t.lastUsedAt)}</td>
              <td>
                <button type="button" className="btn btn--secondary" onClick={() => void onRevoke(t)} data-testid={revokeTestId(t)}>
                  Revocă
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
