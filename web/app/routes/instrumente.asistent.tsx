/**
 * "Asistent AI" (spec 1.7, 4.7; docs/api.md "AI chat"): a chat with the active provider (or the
 * demo mode), an optional project whose context the answer takes into account, replies streamed
 * from `POST /api/ai-chat/stream`. The loader reads the provider status and the project tags
 * through the same domain functions as the API; the conversation lives in the tab's
 * sessionStorage, so it is kept while the user moves between pages of the visit.
 */
import { useEffect, useRef, useState } from 'react';
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';

import assistantCss from '../styles/assistant.css?url';
import { requireSession } from '../lib/auth.server';
import { assistantPage } from '../lib/assistant.server';
import { ToolsLayout } from '../components/tools/ToolsLayout';
import { apiFetch } from '../lib/api';

export const meta: MetaFunction = () => [{ title: 'Asistent AI · Geoportal cadastral' }];
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: assistantCss },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = requireSession(request, context);
  return assistantPage(context.services.tags, auth);
}

type Provider = 'openai' | 'anthropic' | 'ollama' | 'demo';
const PROVIDER_LABELS: Record<Provider, string> = { openai: 'OpenAI', anthropic: 'Anthropic', ollama: 'Ollama (local)', demo: 'mod demonstrativ' };

interface Turn {
  role: 'user' | 'assistant';
  content: string;
  provider?: Provider;
  error?: boolean;
}

const STORAGE_KEY = 'asistent-ai:conversatie';
/** What the API accepts as history (CHAT_LIMITS in domain/ai/prompt.ts): the latest turns. */
const HISTORY_TURNS = 40;
const HISTORY_CHARS = 20_000;

function historyOf(turns: Turn[]): Array<{ role: 'user' | 'assistant'; content: string }> {
  const out: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  let chars = 0;
  for (const t of [...turns].reverse()) {
    if (t.error || !t.content) continue;
    const content = t.content.slice(0, 4000);
    if (out.length >= HISTORY_TURNS || chars + content.length > HISTORY_CHARS) break;
    chars += content.length;
    out.unshift({ role: t.role, content });
  }
  return out;
}

/** Reads a server-sent-events body, calling `on` per event. */
async function readEvents(body: ReadableStream<Uint8Array>, on: (event: string, data: any) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (data) on(event, JSON.parse(data));
    }
  }
}

export default function Asistent() {
  const d = useLoaderData<typeof loader>();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [projectId, setProjectId] = useState('');
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const abortRef = useRef<AbortController | null>(null);
  // Nothing is written back before what was saved has been read, or the first render's empty
  // state would overwrite the conversation.
  const [restored, setRestored] = useState(false);

  useEffect(() => {
    try {
      const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
      if (Array.isArray(saved?.turns)) setTurns(saved.turns);
      if (typeof saved?.projectId === 'string') setProjectId(saved.projectId);
    } catch {
      /* nothing saved, or unreadable: start empty */
    }
    setRestored(true);
  }, []);
  useEffect(() => {
    if (restored && !busy) sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ turns, projectId }));
    endRef.current?.scrollIntoView({ block: 'nearest' });
  }, [turns, projectId, busy, restored]);

  async function send() {
    const message = draft.trim();
    if (!message || busy) return;
    setError(null);
    setBusy(true);
    setDraft('');
    const history = historyOf(turns);
    setTurns((t) => [...t, { role: 'user', content: message }, { role: 'assistant', content: '' }]);
    const update = (patch: Partial<Turn>, append = '') =>
      setTurns((t) => {
        const last = t[t.length - 1];
        return [...t.slice(0, -1), { ...last, ...patch, content: last.content + append }];
      });
    const ac = new AbortController();
    abortRef.current = ac;
    try {
      const res = await apiFetch('post', '/api/ai-chat/stream', { body: { message, history, ...(projectId ? { projectId } : {}) }, signal: ac.signal });
      if (!res.body) throw new Error('Asistentul nu a putut răspunde.');
      await readEvents(res.body, (event, data) => {
        if (event === 'start') update({ provider: data.provider });
        else if (event === 'delta') update({}, data.text);
        else if (event === 'error') throw new Error(data.message);
      });
    } catch (err) {
      if (ac.signal.aborted) {
        update({}, ' [oprit]');
      } else {
        const msg = (err as Error).message || 'Asistentul nu a putut răspunde.';
        setError(msg);
        setTurns((t) => (t[t.length - 1]?.content ? t : t.slice(0, -1)));
        setDraft(message);
      }
    } finally {
      abortRef.current = null;
      setBusy(false);
    }
  }

  const active = d.status.active as Provider;
  return (
    <ToolsLayout active="asistent" title="Asistent AI" sub="Întrebări despre autorizații, urbanism și cadastru; răspunsurile țin cont de proiectul ales.">
      <div className="assistant">
        <div className="assistant__bar">
          <p className="assistant__provider" data-testid="ai-provider">
            Furnizor:{' '}
            <strong className={active === 'demo' ? 'assistant__badge assistant__badge--demo' : 'assistant__badge'}>{PROVIDER_LABELS[active]}</strong>
            {active === 'demo' ? <span className="assistant__muted"> — niciun furnizor AI nu este configurat; răspunsurile sunt predefinite.</span> : null}
          </p>
          <label className="assistant__project">
            <span>Proiect</span>
            <select value={projectId} onChange={(e) => setProjectId(e.target.value)} disabled={busy} data-testid="ai-project">
              <option value="">Fără proiect</option>
              {d.projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.path}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="btn btn--secondary"
            disabled={busy || turns.length === 0}
            onClick={() => {
              setTurns([]);
              setError(null);
            }}
          >
            Conversație nouă
          </button>
        </div>
        {d.projectsError ? <p className="assistant__error" role="alert">{d.projectsError}</p> : null}

        <div className="assistant__log" aria-live="polite" data-testid="ai-log">
          {turns.length === 0 ? (
            <p className="assistant__empty">
              Nicio întrebare încă. Încercați, de exemplu: „Ce documente trebuie pentru certificatul de urbanism?” sau alegeți un proiect și întrebați despre
              parcelele lui.
            </p>
          ) : (
            turns.map((t, i) => (
              <div key={i} className={`assistant__msg assistant__msg--${t.role}`}>
                <span className="assistant__who">{t.role === 'user' ? 'Dvs.' : `Asistent${t.provider ? ` · ${PROVIDER_LABELS[t.provider]}` : ''}`}</span>
                <p>{t.content || (busy && i === turns.length - 1 ? 'Se scrie răspunsul…' : '')}</p>
              </div>
            ))
          )}
          <div ref={endRef} />
        </div>

        {error ? (
          <p className="assistant__error" role="alert">
            {error}
          </p>
        ) : null}
        <form
          className="assistant__form"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <textarea
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void send();
              }
            }}
            maxLength={4000}
            rows={3}
            placeholder="Scrieți întrebarea (Enter trimite, Shift+Enter rând nou)"
            aria-label="Întrebarea pentru asistent"
            data-testid="ai-input"
          />
          {busy ? (
            <button type="button" className="btn btn--secondary" onClick={() => abortRef.current?.abort()}>
              Oprește
            </button>
          ) : (
            <button type="submit" className="btn btn--primary" disabled={!draft.trim()}>
              Trimite
            </button>
          )}
        </form>
      </div>
    </ToolsLayout>
  );
}
