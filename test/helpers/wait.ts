/** Polls `probe` until it answers something truthy (returned), or fails after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false | null>, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
