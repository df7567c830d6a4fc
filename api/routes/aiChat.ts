/**
 * AI chat (spec 4.7; CONTRACT.md section 4 "AI chat"; docs/api.md "AI chat"):
 *   GET  /api/ai-chat                                      → {providers:{openai, anthropic, ollama}, active}
 *   POST /api/ai-chat {message, history?, projectId?}      → {reply, provider}
 *   POST /api/ai-chat/stream (same body)                   → text/event-stream: `start` {provider},
 *        `delta` {text} …, then `done` {reply, provider} or `error` {error, message}
 * Validation, an unknown project (404) and a provider failing before any text (502) answer plain
 * JSON errors on both POST routes; the stream starts only once the first piece of text is there.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { clientGone } from '../http/download';
import { defineRoute } from '../http/route';
import { heavyWork, holdSlot } from '../http/rateLimit';
import { viewerOf, type SessionContext } from '../../domain/auth/rules';
import { registryViewer } from '../../domain/registry/rules';
import { AppError } from '../../domain/errors';
import { CHAT_LIMITS } from '../../domain/ai/rules';
import type { AiService, ChatCaller } from '../../domain/ai/service';

const Provider = z.enum(['openai', 'anthropic', 'ollama', 'demo']);
const StatusOut = z.object({
  providers: z.object({ openai: z.boolean(), anthropic: z.boolean(), ollama: z.boolean() }).openapi({ description: 'Which providers are configured (key set; Ollama: URL set)' }),
  active: Provider.openapi({ description: 'The provider that answers: AI_PROVIDER, else the first configured, else demo' }),
});
const Turn = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string().min(1).max(CHAT_LIMITS.messageChars, `Un mesaj are cel mult ${CHAT_LIMITS.messageChars} de caractere.`),
});
const ChatBody = z.object({
  message: z
    .string()
    .trim()
    .min(1, 'Mesajul nu poate fi gol.')
    .max(CHAT_LIMITS.messageChars, `Mesajul are cel mult ${CHAT_LIMITS.messageChars} de caractere.`),
  history: z
    .array(Turn)
    .max(CHAT_LIMITS.historyTurns, `Istoricul are cel mult ${CHAT_LIMITS.historyTurns} de mesaje.`)
    .refine((h) => h.reduce((n, t) => n + t.content.length, 0) <= CHAT_LIMITS.historyChars, {
      message: `Istoricul are cel mult ${CHAT_LIMITS.historyChars} de caractere în total.`,
    })
    .optional()
    .openapi({ description: 'Earlier turns of the conversation, oldest first' }),
  projectId: z.string().uuid('Id-ul proiectului nu este valid.').optional().openapi({ description: 'A project tag id (GET /api/project-tags), or any tag id of a project known only from full-path tags; its context is injected' }),
});
const ChatOut = z.object({ reply: z.string(), provider: Provider });

function callerOf(auth: SessionContext | undefined): ChatCaller {
  return { viewer: viewerOf(auth), registryViewer: registryViewer(auth!) };
}

export function registerAiChatRoutes(router: Router, ai: AiService): void {
  defineRoute(
    router,
    {
      method: 'get',
      path: '/api/ai-chat',
      summary: 'Which AI providers are configured and which one answers',
      tags: ['ai chat'],
      auth: 'session',
      response: { description: 'Provider status (never a key)', schema: StatusOut },
    },
    () => ai.providerStatus(),
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/ai-chat',
      summary: 'Ask the AI assistant (default Romanian architecture prompt, optional project context)',
      tags: ['ai chat'],
      auth: 'session',
      body: ChatBody,
      response: { description: 'The answer and the provider that gave it', schema: ChatOut },
      failures: { 404: 'Unknown project', 429: 'Past the per-user or global cap of questions in flight (Retry-After)', 502: 'The provider failed (after one retry where safe)' },
    },
    async ({ body, auth, req, res }) => {
      await holdSlot(heavyWork.ai, req, res);
      return ai.chat(body, callerOf(auth), clientGone(res));
    },
  );

  defineRoute(
    router,
    {
      method: 'post',
      path: '/api/ai-chat/stream',
      summary: 'Ask the AI assistant, answer streamed as server-sent events',
      tags: ['ai chat'],
      auth: 'session',
      body: ChatBody,
      response: {
        description: 'Events `start` {provider}, `delta` {text} (repeated), then `done` {reply, provider} or `error` {error, message}',
        contentType: 'text/event-stream',
        schema: z.string(),
      },
      failures: { 404: 'Unknown project', 429: 'Past the per-user or global cap of questions in flight (Retry-After)', 502: 'The provider failed before any text (after one retry)' },
    },
    async ({ body, auth, req, res }) => {
      await holdSlot(heavyWork.ai, req, res);
      const signal = clientGone(res);
      const stream = await ai.openChatStream(body, callerOf(auth), signal);
      res.status(200).set({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send('start', { provider: stream.provider });
      let reply = '';
      try {
        for await (const text of stream.pieces) {
          if (signal.aborted) return;
          reply += text;
          send('delta', { text });
        }
        send('done', { reply, provider: stream.provider });
      } catch (err) {
        const e = err instanceof AppError ? err : null;
        if (!signal.aborted) send('error', { error: e?.code ?? 'upstream_error', message: e?.message ?? 'Asistentul AI nu a putut termina răspunsul.' });
      } finally {
        res.end();
      }
    },
  );
}
