/** Escapes LIKE wildcards so a user's `%` or `_` matches itself (the store's searches: map, sync tab). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
