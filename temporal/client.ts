/**
 * One cached Temporal Connection + Client per process, from config. The API, the schedule
 * registration and the scripts share it; opening a gRPC connection per request would be wasteful.
 */
import { Client, Connection } from '@temporalio/client';
import { config } from '../domain/config';

export interface TemporalClientOptions {
  address?: string;
  namespace?: string;
}

let cached: { key: string; promise: Promise<{ connection: Connection; client: Client }> } | undefined;

/**
 * Returns the process-wide client (connecting on first use). A failed connect is not cached, so
 * the next call retries: the dev server may simply not be up yet.
 */
export async function getTemporalClient(opts: TemporalClientOptions = {}): Promise<Client> {
  const address = opts.address ?? config.temporal.address;
  const namespace = opts.namespace ?? config.temporal.namespace;
  const key = `${address}/${namespace}`;
  if (cached && cached.key !== key) await closeTemporalClient();
  if (!cached) {
    const promise = (async () => {
      const connection = await Connection.connect({ address });
      return { connection, client: new Client({ connection, namespace }) };
    })();
    cached = { key, promise };
    promise.catch(() => {
      if (cached?.promise === promise) cached = undefined;
    });
  }
  return (await cached.promise).client;
}

/** Closes the cached connection (graceful shutdown, end of a test file). Safe to call twice. */
export async function closeTemporalClient(): Promise<void> {
  const current = cached;
  cached = undefined;
  if (!current) return;
  try {
    const { connection } = await current.promise;
    await connection.close();
  } catch {
    // The connection never came up; nothing to close.
  }
}

/**
 * Liveness of the Temporal frontend for the health line: the server's version, or a rejection
 * within the deadline (a dead server shows red instead of hanging the page).
 */
export async function checkTemporal(timeoutMs = 2000): Promise<string> {
  const client = await getTemporalClient();
  const info = await client.connection.withDeadline(Date.now() + timeoutMs, () =>
    client.connection.workflowService.getSystemInfo({}),
  );
  return `server ${info.serverVersion ?? '?'}`;
}
