import net from 'node:net';

/** Whether an address (as Node reports a peer: `127.0.0.1`, `::1`, `::ffff:127.0.0.1`) is this machine's loopback. */
export function isLoopback(ip: string | undefined): boolean {
  return !!ip && (ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.'));
}

/**
 * A loopback port nothing listens on as this returns: the kernel's pick of an ephemeral port,
 * released at once for the caller's own server (the worker's SDK metrics endpoint, a test's or a
 * bench's process), which may rarely lose it to another process in between.
 */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
