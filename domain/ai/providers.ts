/**
 * The three AI providers through their official clients (`openai`, `@anthropic-ai/sdk`,
 * `ollama`), each answering a conversation whole or as a stream of text pieces, plus which of
 * them is configured and active (docs/api.md "AI chat"). The clients keep what they are good at
 * (request shapes, the server-sent-event and NDJSON stream parsers, typed errors with the status)
 * but send over the outside-call transport: each is handed `outsideFetch` (domain/outside/
 * transport.ts: the shared keep-alive pool, the providers' shared rate limit, the deadline, the
 * caller's stop). Their own retries are off: the chat's one retry is the outside-call base's
 * (chat.ts, domain/outside/call.ts). Keys stay in the client objects: no error, log line or
 * answer built here carries one.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { AI_PROVIDERS, type AiProviderName, type AiSettings } from '../config';
import type { Db } from '../db/pool';
import { outsideFetch, type OutsideTarget } from '../outside/service';
import type { ChatTurn } from './prompt';

export type ActiveProvider = AiProviderName | 'demo';

export interface ProviderStatus {
  providers: Record<AiProviderName, boolean>;
  active: ActiveProvider;
}

/**
 * Configured: its key is set (Ollama, which has none: its URL). Active: AI_PROVIDER when it names
 * a configured provider (or `demo`), else the first configured of openai, anthropic, ollama, else
 * demo. An AI_PROVIDER naming an unconfigured provider is skipped rather than failing every chat.
 */
export function providerStatus(s: AiSettings): ProviderStatus {
  const providers = { openai: !!s.openai.apiKey, anthropic: !!s.anthropic.apiKey, ollama: !!s.ollama.url };
  const explicit = s.provider === 'demo' || (s.provider && providers[s.provider]) ? s.provider : null;
  const active: ActiveProvider = explicit ?? AI_PROVIDERS.find((p) => providers[p]) ?? 'demo';
  return { providers, active };
}

/** Display names, for the reply's provider label in the UI. */
export const PROVIDER_LABELS: Record<ActiveProvider, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  ollama: 'Ollama',
  demo: 'mod demonstrativ',
};

export interface Conversation {
  system: string;
  turns: ChatTurn[];
}

export interface ProviderClient {
  complete(c: Conversation, signal: AbortSignal): Promise<string>;
  stream(c: Conversation, signal: AbortSignal): AsyncGenerator<string>;
}

/** A failed upstream call, with the status the provider answered (none: no answer at all). */
export class UpstreamFailure extends Error {
  constructor(
    readonly provider: AiProviderName,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
  /** Worth one more try: no answer, a timeout, a rate limit or a server error (not a refusal of the request). */
  get retryable(): boolean {
    return this.status === null || this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
  }
}

function failure(provider: AiProviderName, err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  const e = err as { status?: unknown; status_code?: unknown; name?: string; message?: string };
  const status = typeof e?.status === 'number' ? e.status : typeof e?.status_code === 'number' ? e.status_code : null;
  // Only the class of failure and the status travel on: an SDK message may quote the request.
  return new UpstreamFailure(provider, status, `${provider} ${status ?? e?.name ?? 'error'}`);
}

async function* guarded(provider: AiProviderName, gen: AsyncIterable<string>): AsyncGenerator<string> {
  try {
    for await (const piece of gen) if (piece) yield piece;
  } catch (err) {
    throw failure(provider, err);
  }
}

function openaiClient(s: AiSettings, target: OutsideTarget): ProviderClient {
  const client = new OpenAI({ apiKey: s.openai.apiKey, baseURL: s.openai.baseUrl, maxRetries: 0, fetch: outsideFetch(target, { timeoutMs: s.timeoutMs }), logLevel: 'off' });
  const messages = (c: Conversation): OpenAI.ChatCompletionMessageParam[] => [{ role: 'system', content: c.system }, ...c.turns];
  return {
    async complete(c, signal) {
      try {
        const r = await client.chat.completions.create({ model: s.openai.model, messages: messages(c), max_completion_tokens: s.maxTokens }, { signal });
        return r.choices[0]?.message?.content ?? '';
      } catch (err) {
        throw failure('openai', err);
      }
    },
    stream(c, signal) {
      return guarded(
        'openai',
        (async function* () {
          const stream = await client.chat.completions.create(
            { model: s.openai.model, messages: messages(c), max_completion_tokens: s.maxTokens, stream: true },
            { signal },
          );
          for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
        })(),
      );
    },
  };
}

function anthropicClient(s: AiSettings, target: OutsideTarget): ProviderClient {
  const client = new Anthropic({
    apiKey: s.anthropic.apiKey,
    baseURL: s.anthropic.baseUrl,
    maxRetries: 0,
    fetch: outsideFetch(target, { timeoutMs: s.timeoutMs }),
    logLevel: 'off',
  });
  const params = (c: Conversation) => ({ model: s.anthropic.model, max_tokens: s.maxTokens, system: c.system, messages: c.turns });
  return {
    async complete(c, signal) {
      try {
        const m = await client.messages.create(params(c), { signal });
        return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      } catch (err) {
        throw failure('anthropic', err);
      }
    },
    stream(c, signal) {
      return guarded(
        'anthropic',
        (async function* () {
          const stream = await client.messages.create({ ...params(c), stream: true }, { signal });
          for await (const ev of stream) {
            if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') yield ev.delta.text;
          }
        })(),
      );
    },
  };
}

function ollamaClient(s: AiSettings, target: OutsideTarget): ProviderClient {
  // The ollama client has no per-call signal: it goes into its fetch.
  const withSignal = (signal: AbortSignal) => new Ollama({ host: s.ollama.url, fetch: outsideFetch(target, { timeoutMs: s.timeoutMs, signal }) });
  const messages = (c: Conversation) => [{ role: 'system', content: c.system }, ...c.turns];
  return {
    async complete(c, signal) {
      try {
        const r = await withSignal(signal).chat({ model: s.ollama.model, messages: messages(c), stream: false, options: { num_predict: s.maxTokens } });
        return r.message.content;
      } catch (err) {
        throw failure('ollama', err);
      }
    },
    stream(c, signal) {
      return guarded(
        'ollama',
        (async function* () {
          const stream = await withSignal(signal).chat({ model: s.ollama.model, messages: messages(c), stream: true, options: { num_predict: s.maxTokens } });
          for await (const part of stream) yield part.message.content;
        })(),
      );
    },
  };
}

/** `db`: the caller's store's pool, whose shared schedule paces the providers. */
export function providerClient(s: AiSettings, provider: AiProviderName, db: Db): ProviderClient {
  const target: OutsideTarget = { service: 'ai', db };
  switch (provider) {
    case 'openai':
      return openaiClient(s, target);
    case 'anthropic':
      return anthropicClient(s, target);
    case 'ollama':
      return ollamaClient(s, target);
  }
}
