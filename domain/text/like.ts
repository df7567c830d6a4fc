/** Escapes LIKE wildcards so a user's `%` or `_` matches itself (every search of the store: map, sync tab, owners, registry). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
