/**
 * AI providers simulator (EXTERNAL-SERVICES.md "AI providers"): ONE server speaking three
 * protocols, streaming and not, so the official clients (`openai`, `@anthropic-ai/sdk`, `ollama`)
 * run unchanged against it:
 *   POST /v1/chat/completions   OpenAI chat completions (`stream: true` → SSE chunks, `data: [DONE]`)
 *   GET  /v1/models             OpenAI model list
 *   POST /v1/messages           Anthropic messages (`stream: true` → SSE events message_start …
 *                               message_stop); `anthropic-version` is accepted and ignored
 *   POST /api/chat              Ollama chat (streams NDJSON unless `stream: false`, Ollama's default)
 *   GET  /api/tags, /api/version  Ollama model list and version
 *   /__sim/faults, /__sim/reset, /__sim/requests (simulators/shared/control.ts); calls are also
 *   counted as `chat:<protocol>` and `chat:<protocol>:stream` when answered, and every call as
 *   `received:<METHOD> <path>` even when a fault answers it.
 *   GET /__sim/truth → {requests: [{protocol, model, stream, system, messages, auth}]}: the last
 *   20 chat calls as received (`auth` names the header that carried a key, never the key), so a
 *   test sees the system prompt a service really sent.
 * The hosted protocols want a key, from `Authorization: Bearer` or `x-api-key` (either works for
 * both); no key → 401 in the protocol's error shape. Ollama needs none. Replies: replies.ts.
 */
import type { Response } from 'express';
import express from 'express';
import { simSettings } from '../shared/settings';
import { listenSimulator } from '../shared/app';
import { SimControl } from '../shared/control';
import { cannedReply, streamPieces, type SimProtocol, type SimTurn } from './replies';

export interface AiSimOptions {
  port?: number;
  host?: string;
  /** Pause between two stream pieces, so a client really receives several chunks. */
  chunkDelayMs?: number;
}

export interface AiSimulator {
  url: string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Text of a message content: a string, or the content-block arrays both hosted APIs accept. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
      .join('');
  }
  return '';
}

function turnsOf(messages: unknown): SimTurn[] {
  if (!Array.isArray(messages)) return [];
  return messages
    .filter((m): m is { role: unknown; content: unknown } => !!m && typeof m === 'object')
    .map((m) => ({ role: String(m.role), content: textOf(m.content) }));
}

function apiKey(req: express.Request): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '');
  return bearer?.[1]?.trim() || req.get('x-api-key')?.trim() || null;
}

export function createAiSimApp(opts: AiSimOptions = {}) {
  const chunkDelayMs = opts.chunkDelayMs ?? 5;
  const control = new SimControl('Simulatorul AI');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Counted before the faults answer, so a test sees that a failed call was tried again.
  app.use((req, _res, next) => {
    if (!req.path.startsWith('/__sim')) control.hit(`received:${req.method} ${req.path}`);
    next();
  });
  app.use(control.faultMiddleware());
  app.use(control.routeCounter());
  app.use(express.json({ limit: '5mb' }));
  let received: Array<{ protocol: SimProtocol; model: string; stream: boolean; system: string; messages: SimTurn[]; auth: string | null }> = [];
  app.use(
    '/__sim',
    control.router({
      onReset: () => {
        received = [];
      },
      extend: (r) => r.get('/truth', (_req, res) => res.json({ requests: received })),
    }),
  );

  const count = (req: express.Request, protocol: SimProtocol, stream: boolean, system: string, messages: SimTurn[]) => {
    control.hit(`chat:${protocol}`);
    if (stream) control.hit(`chat:${protocol}:stream`);
    const auth = /^Bearer\s/i.test(req.get('authorization') ?? '') ? 'bearer' : req.get('x-api-key') ? 'x-api-key' : null;
    received = [...received, { protocol, model: String(req.body?.model), stream, system, messages, auth }].slice(-20);
  };

  const sse = (res: Response) => {
    res.status(200).set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
  };

  // --- OpenAI chat completions ------------------------------------------------------------
  app.get('/v1/models', (req, res) => {
    if (!apiKey(req)) return openaiUnauthorized(res);
    res.json({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'simulator' }] });
  });

  app.post('/v1/chat/completions', async (req, res) => {
    if (!apiKey(req)) return openaiUnauthorized(res);
    const body = req.body ?? {};
    const all = turnsOf(body.messages);
    if (all.length === 0 || typeof body.model !== 'string') {
      res.status(400).json({ error: { message: "'model' and 'messages' are required", type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    const system = all.filter((t) => t.role === 'system' || t.role === 'developer').map((t) => t.content).join('\n');
    const turns = all.filter((t) => t.role !== 'system' && t.role !== 'developer');
    const text = cannedReply('openai', body.model, system, turns);
    const id = `chatcmpl-sim${Date.now().toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    count(req, 'openai', !!body.stream, system, turns);
    if (!body.stream) {
      res.json({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: system.length + turns.length, completion_tokens: text.length, total_tokens: system.length + text.length },
      });
      return;
    }
    sse(res);
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of streamPieces(text)) {
      if (res.destroyed) return;
      res.write(chunk({ content: piece }, null));
      await sleep(chunkDelayMs);
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });

  // --- Anthropic messages -----------------------------------------------------------------
  app.post('/v1/messages', async (req, res) => {
    if (!apiKey(req)) {
      res.status(401).json({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      return;
    }
    const body = req.body ?? {};
    const turns = turnsOf(body.messages);
    if (turns.length === 0 || typeof body.model !== 'string' || typeof body.max_tokens !== 'number') {
      res.status(400).json({ type: 'error', error: { type: 'invalid_request_error', message: 'model, max_tokens and messages are required' } });
      return;
    }
    const system = textOf(body.system);
    const text = cannedReply('anthropic', body.model, system, turns);
    const id = `msg_sim${Date.now().toString(36)}`;
    const usage = { input_tokens: system.length, output_tokens: text.length };
    count(req, 'anthropic', !!body.stream, system, turns);
    const message = (content: object[], stop: string | null) => ({
      id,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
    if (!body.stream) {
      res.json(message([{ type: 'text', text }], 'end_turn'));
      return;
    }
    sse(res);
    const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    res.write(event('message_start', { message: message([], null) }));
    res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    res.write(event('ping', {}));
    for (const piece of streamPieces(text)) {
      if (res.destroyed) return;
      res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }));
      await sleep(chunkDelayMs);
    }
    res.write(event('content_block_stop', { index: 0 }));
    res.write(event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: text.length } }));
    res.end(event('message_stop', {}));
  });

  // --- Ollama chat ------------------------------------------------------------------------
  app.get('/api/version', (_req, res) => {
    res.json({ version: '0.6.0-sim' });
  });
  app.get('/api/tags', (_req, res) => {
    res.json({ models: [{ name: 'llama3.1', model: 'llama3.1', modified_at: new Date(0).toISOString(), size: 0, digest: 'sim', details: {} }] });
  });
  app.post('/api/chat', async (req, res) => {
    const body = req.body ?? {};
    const all = turnsOf(body.messages);
    if (typeof body.model !== 'string' || !body.model) {
      res.status(400).json({ error: 'model is required' });
      return;
    }
    const system = all.filter((t) => t.role === 'system').map((t) => t.content).join('\n');
    const turns = all.filter((t) => t.role !== 'system');
    const text = cannedReply('ollama', body.model, system, turns);
    const stream = body.stream !== false; // Ollama streams unless told not to
    const base = { model: body.model, created_at: new Date().toISOString() };
    const totals = { done_reason: 'stop', total_duration: 1_000_000, load_duration: 1000, prompt_eval_count: all.length, eval_count: text.length };
    count(req, 'ollama', stream, system, turns);
    if (!stream) {
      res.json({ ...base, message: { role: 'assistant', content: text }, done: true, ...totals });
      return;
    }
    res.status(200).set({ 'content-type': 'application/x-ndjson' });
    res.flushHeaders();
    for (const piece of streamPieces(text)) {
      if (res.destroyed) return;
      res.write(`${JSON.stringify({ ...base, message: { role: 'assistant', content: piece }, done: false })}\n`);
      await sleep(chunkDelayMs);
    }
    res.end(`${JSON.stringify({ ...base, message: { role: 'assistant', content: '' }, done: true, ...totals })}\n`);
  });

  return app;
}

function openaiUnauthorized(res: Response): void {
  res.status(401).json({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
}

export async function startAiSimulator(opts: AiSimOptions = {}): Promise<AiSimulator> {
  return listenSimulator(createAiSimApp(opts), opts.port ?? simSettings.ai.port, opts.host);
}
