// A TCP proxy for tests that need the server side of a connection to go away: in front of the gateway
// (a gateway restarting, a load balancer's idle cut: `dropAll()` cuts every connection it carries
// while it keeps accepting new ones; it counts the WebSocket handshakes it saw per path, so a test
// can wait for a client to have reconnected), or in front of PostgreSQL or NATS (an outage:
// `refuse()` cuts every connection and stops listening, so new ones are refused, until `accept()`).
// Given several targets it is a load balancer: connections go to them in turn, and a target that
// refuses (a replica that died) is skipped for the next one.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: use it as the app's origin. */
  url: string;
  port: number;
  /** Destroys every open connection (both ends), as a server that went away. */
  dropAll(): void;
  /** How many WebSocket handshakes for `path` went through so far. */
  upgrades(path: string): number;
  /** Cuts every connection and closes the port: connecting is refused, as to a server that is down. */
  refuse(): Promise<void>;
  /** Listens on the same port again. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

/** The request line and headers of a connection's first bytes: `GET /path` when they ask for a WebSocket. */
function webSocketPath(head: string): string | null {
  const [requestLine = "", ...headers] = head.split("\r\n");
  const upgrade = headers.some((h) => /^upgrade:\s*websocket\s*$/i.test(h));
  const path = /^GET (\S+) HTTP\/1\.1$/.exec(requestLine)?.[1];
  return upgrade && path ? path.split("?")[0]! : null;
}

type Target = { host: string; port: number };

/** `opts.refusing`: start with the port closed (a dependency down from the start); `accept()` opens it. */
export async function startTcpProxy(target: Target | Target[], opts: { refusing?: boolean } = {}): Promise<TcpProxy> {
  const targets = Array.isArray(target) ? target : [target];
  let next = 0;
  const open = new Set<Socket>();
  const handshakes = new Map<string, number>();
  /** The first target, from the next in turn, that accepts the connection; null when none does. */
  const connectUpstream = (tried = 0): Promise<Socket | null> => {
    if (tried === targets.length) return Promise.resolve(null);
    const t = targets[next++ % targets.length]!;
    return new Promise((resolve) => {
      const upstream = connect(t.port, t.host);
      const refused = () => {
        upstream.destroy();
        resolve(connectUpstream(tried + 1));
      };
      upstream.once("error", refused);
      upstream.once("connect", () => {
        upstream.off("error", refused);
        resolve(upstream);
      });
    });
  };
  const server: Server = createServer((client) => {
    // Hold the client's bytes until a target took the connection.
    client.pause();
    open.add(client);
    client.once("data", (first: Buffer) => {
      const path = webSocketPath(first.toString("latin1"));
      if (path) handshakes.set(path, (handshakes.get(path) ?? 0) + 1);
    });
    client.on("error", () => {
      client.destroy();
      open.delete(client);
    });
    void connectUpstream().then((upstream) => {
      if (!upstream || client.destroyed) {
        upstream?.destroy();
        client.destroy();
        open.delete(client);
        return;
      }
      open.add(upstream);
      client.pipe(upstream).pipe(client);
      client.resume();
      const forget = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on("error", forget).on("close", forget);
      upstream.on("error", forget).on("close", forget);
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      open.forEach((socket) => socket.destroy());
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  if (opts.refusing) await stopListening();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dropAll: () => open.forEach((socket) => socket.destroy()),
    upgrades: (path) => handshakes.get(path) ?? 0,
    refuse: stopListening,
    accept: () => (server.listening ? Promise.resolve() : listen(port)),
    close: stopListening,
  };
}
