/** Whether an address (as Node reports a peer: `127.0.0.1`, `::1`, `::ffff:127.0.0.1`) is this machine's loopback. */
export function isLoopback(ip: string | undefined): boolean {
  return !!ip && (ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.'));
}
