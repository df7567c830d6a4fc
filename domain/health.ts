/**
 * Live checks of the infrastructure the service stands on, shown on the home page's health line
 * and used by the stack launcher. Each probe is bounded by a timeout so a dead dependency shows
 * as red instead of hanging the page.
 */
export interface ProbeResult {
  ok: boolean;
  ms: number;
  detail?: string;
}

export async function probe(fn: () => Promise<string | void>, timeoutMs = 3000): Promise<ProbeResult> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, ms: Date.now() - started, ...(detail ? { detail } : {}) };
  } catch (err) {
    return { ok: false, ms: Date.now() - started, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
