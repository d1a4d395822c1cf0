// A WebSocket client for end-to-end tests: opens a socket on the gateway (optionally with the
// `bearer, <token>` subprotocol), records every message and the close, or reports a refused handshake.
import { eventually } from "@scribe/kit/testing";
import WebSocket, { type ClientOptions } from "ws";

export interface WsMessage {
  event: string;
  data: Record<string, unknown>;
}

export interface OpenSocket {
  kind: "open";
  ws: WebSocket;
  /** The subprotocol the server selected ("" when none). */
  protocol: string;
  messages: WsMessage[];
  /** Set once the server or the client closed the socket. */
  closed: { code: number; reason: string } | null;
  /** Waits until `n` messages arrived; answers them all. */
  received(n: number): Promise<WsMessage[]>;
  /** Waits until a message satisfies `match`; answers every message up to and including it. */
  until(match: (m: WsMessage) => boolean): Promise<WsMessage[]>;
  /** Waits for the close and answers its code and reason. */
  closedWith(): Promise<{ code: number; reason: string }>;
  close(): void;
}

export interface RefusedSocket {
  kind: "refused";
  /** HTTP status of the refused handshake. */
  status: number;
}

/** `protocols`: what the client offers, e.g. `["bearer", token]`; none by default. */
export function openSocket(
  baseUrl: string,
  path: string,
  protocols: string[] = [],
  options: ClientOptions = {},
): Promise<OpenSocket | RefusedSocket> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}${path}`, protocols, options);
  const messages: WsMessage[] = [];
  let closed: OpenSocket["closed"] = null;
  ws.on("message", (data) => messages.push(JSON.parse(data.toString()) as WsMessage));
  ws.on("close", (code, reason) => {
    closed = { code, reason: reason.toString() };
  });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      const socket: OpenSocket = {
        kind: "open",
        ws,
        protocol: ws.protocol,
        messages,
        get closed() {
          return closed;
        },
        received: (n) =>
          eventually(() => (messages.length >= n ? [...messages] : null), { message: `${n} messages (got ${messages.length})` }),
        async until(match) {
          const i = await eventually(
            () => {
              const at = messages.findIndex(match);
              return at >= 0 ? at + 1 : null;
            },
            { message: "the awaited message" },
          );
          return messages.slice(0, i);
        },
        closedWith: () => eventually(() => closed, { message: "the socket's close" }),
        close: () => ws.close(),
      };
      resolve(socket);
    });
    // Errors after the handshake show up as the close; only a failed handshake settles here.
    ws.on("error", (err) => {
      const status = /Unexpected server response: (\d+)/.exec(err.message);
      if (status) resolve({ kind: "refused", status: Number(status[1]) });
      else reject(err);
    });
  });
}

/** Opens a socket that must be accepted. */
export async function mustOpen(baseUrl: string, path: string, protocols: string[] = [], options: ClientOptions = {}): Promise<OpenSocket> {
  const s = await openSocket(baseUrl, path, protocols, options);
  if (s.kind !== "open") throw new Error(`handshake on ${path} refused with ${s.status}`);
  return s;
}
