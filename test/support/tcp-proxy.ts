import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP forwarder in front of a real server: `cut()` closes it and every connection
 * through it (clients then get "connection refused", as from a dead node), `restore()` listens
 * again on the same port. Lets a test make the shared cluster unreachable for one app only.
 */
export interface TcpProxy {
  readonly url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const to = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;

  const listen = async () => {
    const s = net.createServer((client) => {
      const upstream = net.connect(Number(to.port), to.hostname);
      for (const sock of [client, upstream]) {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
        sock.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };

  const cut = async () => {
    const s = server;
    server = null;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    cut,
    restore: async () => {
      if (!server) await listen();
    },
    close: cut,
  };
}
