/**
 * The innermost message of a Temporal failure chain (WorkflowFailedError → ActivityFailure →
 * ApplicationFailure → …): what a person needs to read. Pure, so workflows may import it too.
 */
export function failureMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  let msg = e?.message ?? String(err);
  while (e?.cause) {
    e = e.cause as { message?: string; cause?: unknown };
    if (e.message) msg = e.message;
  }
  return msg;
}
