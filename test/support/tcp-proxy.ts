// A TCP proxy in front of the gateway for browser tests that need the server side of a connection to
// go away (a gateway restarting, a load balancer's idle cut): the browser talks to the proxy, and
// `dropAll()` cuts every connection it carries while it keeps accepting new ones. It also counts the
// WebSocket handshakes it saw per path, so a test can wait for a client to have reconnected.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: use it as the app's origin. */
  url: string;
  /** Destroys every open connection (both ends), as a server that went away. */
  dropAll(): void;
  /** How many WebSocket handshakes for `path` went through so far. */
  upgrades(path: string): number;
  close(): Promise<void>;
}

/** The request line and headers of a connection's first bytes: `GET /path` when they ask for a WebSocket. */
function webSocketPath(head: string): string | null {
  const [requestLine = "", ...headers] = head.split("\r\n");
  const upgrade = headers.some((h) => /^upgrade:\s*websocket\s*$/i.test(h));
  const path = /^GET (\S+) HTTP\/1\.1$/.exec(requestLine)?.[1];
  return upgrade && path ? path.split("?")[0]! : null;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const handshakes = new Map<string, number>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    open.add(client).add(upstream);
    client.once("data", (first: Buffer) => {
      const path = webSocketPath(first.toString("latin1"));
      if (path) handshakes.set(path, (handshakes.get(path) ?? 0) + 1);
    });
    client.pipe(upstream).pipe(client);
    const forget = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", forget).on("close", forget);
    upstream.on("error", forget).on("close", forget);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dropAll: () => open.forEach((socket) => socket.destroy()),
    upgrades: (path) => handshakes.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        open.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
