import net from "node:net";

/**
 * A loopback port nothing listens on as this returns: the kernel's pick of an ephemeral port,
 * released at once for the caller's own server (which may, rarely, lose it to another process
 * in between: scripts/stack/proc.ts startReady retries a taken port).
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
