// The gateway's WebSocket side: upgrades through @hono/node-ws (the Hono app runs the handshake, so
// auth, access checks, error statuses and request logs are the HTTP ones), the open-socket gauge,
// the user hub, and closing every socket on shutdown.
import type { ServerType } from "@hono/node-server";
import { createNodeWebSocket, type NodeWebSocket } from "@hono/node-ws";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Unavailable, registry, rpcCall, type Bus, type Clock, type Logger } from "@scribe/kit";
import type { Context } from "hono";
import { Gauge } from "prom-client";
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { AppEnv } from "../http/context";
import { CLOSE_UNAUTHENTICATED, selectProtocol, type WsMessage } from "./protocol";
import { ANONYMOUS, projectionOps, type Caller } from "@scribe/contracts";
import { AccessWatch } from "./access-watch";
import { ReadModelGate, type AwaitReadModel } from "./read-model-gate";
import { TranscriptFeeds } from "./transcript-feed";
import { UserHub } from "./user-hub";

const openSockets = new Gauge({
  name: "scribe_websockets_open",
  help: "open WebSockets of the gateway (transcript: a transcript's events; user: a user's notifications)",
  labelNames: ["socket"],
  registers: [registry],
});

/** A client this far behind (bytes queued, not yet sent) is dropped rather than buffered without end. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Close codes: 1001 going away (shutdown), 1011 server error, 1013 try again later (too slow). */
const GOING_AWAY = 1001;
const SERVER_ERROR = 1011;
const TRY_AGAIN_LATER = 1013;
/** How long shutdown waits for clients to answer the close before cutting them off. */
const CLOSE_GRACE_MS = 2000;
const MAX_MISSED_PINGS = 2;

/** Serves a request that offered a non-WebSocket upgrade as an ordinary one on its socket, then closes it. */
function answerPlainly(server: ServerType, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  if (head.length > 0) socket.unshift(head);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on("finish", () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  server.emit("request", req, res);
}

function sender(ws: WebSocket, log: Logger): (message: WsMessage) => void {
  return (message) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      log.warn({ buffered: ws.bufferedAmount }, "closing a WebSocket whose client does not keep up");
      ws.close(TRY_AGAIN_LATER, "Client too slow");
      return;
    }
    ws.send(JSON.stringify(message));
  };
}

export interface RealtimeOptions {
  /** WS_PING_INTERVAL_MS: 0 sends no pings. */
  pingIntervalMs: number;
  /** When a token's remaining life is counted from. */
  clock: Clock;
}

export class Realtime {
  readonly hub: UserHub;
  private readonly feeds: TranscriptFeeds;
  private readonly access: AccessWatch;
  private nodeWs: NodeWebSocket | null = null;
  private closing = false;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Pings a socket has not answered since it last answered one. */
  private readonly unanswered = new WeakMap<WebSocket, number>();
  private readonly transcriptSockets = new Map<string, number>();

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly opts: RealtimeOptions,
  ) {
    const awaitReadModel: AwaitReadModel = async (id, version, timeoutMs) =>
      (
        await rpcCall(
          bus,
          projectionOps.awaitVersion,
          { caller: ANONYMOUS, id, version, timeout_ms: timeoutMs },
          { timeoutMs: timeoutMs + 1000 },
        )
      ).version;
    const gate = new ReadModelGate(awaitReadModel, log.child({ component: "sockets" }));
    this.hub = new UserHub(bus, log.child({ component: "user-sockets" }), gate);
    this.feeds = new TranscriptFeeds(bus, log.child({ component: "transcript-sockets" }), gate);
    this.access = new AccessWatch(bus, log.child({ component: "transcript-sockets" }));
  }

  async start(): Promise<void> {
    await this.hub.start();
    await this.access.start();
    if (this.opts.pingIntervalMs > 0) {
      this.heartbeat = setInterval(() => this.ping(), this.opts.pingIntervalMs);
      this.heartbeat.unref();
    }
  }

  /**
   * A client that vanished without closing (network gone, laptop lid shut) would hold its feed
   * forever: protocol pings (answered by browsers on their own, no app-level messages) find it. Two
   * unanswered pings in a row drop it, so one late answer on a busy process does not.
   */
  private ping(): void {
    for (const ws of this.nodeWs?.wss.clients ?? []) {
      const missed = this.unanswered.get(ws) ?? 0;
      if (missed >= MAX_MISSED_PINGS) {
        this.log.info({ missed }, "dropping a WebSocket that does not answer pings");
        ws.terminate();
        continue;
      }
      this.unanswered.set(ws, missed + 1);
      ws.ping();
    }
  }

  /** Binds the upgrade helper to the app that runs the handshakes. */
  attach(app: OpenAPIHono<AppEnv>): void {
    this.nodeWs = createNodeWebSocket({ app });
    this.nodeWs.wss.on("connection", (ws) => ws.on("pong", () => this.unanswered.delete(ws)));
    // Echo `bearer` only, never the token that follows it in the offer (api.md §0.5).
    this.nodeWs.wss.options.handleProtocols = (offered) => selectProtocol(offered);
  }

  /**
   * Routes the server's WebSocket upgrade requests to the app. Node hands every request with an
   * `Upgrade` header to upgrade listeners once there is one, so other offers (curl's `--http2` sends
   * `Upgrade: h2c`) are answered here as the plain requests they also are.
   */
  inject(server: ServerType): void {
    const onlyWebSockets = {
      on: (event: "upgrade", listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) =>
        server.on(event, (req: IncomingMessage, socket: Duplex, head: Buffer) =>
          req.headers.upgrade?.toLowerCase() === "websocket" ? listener(req, socket, head) : answerPlainly(server, req, socket, head),
        ),
    };
    this.upgrader().injectWebSocket(onlyWebSockets as unknown as ServerType);
  }

  /** Open transcript sockets of one client address (the per-client cap). */
  transcriptSocketsOf(client: string): number {
    return this.transcriptSockets.get(client) ?? 0;
  }

  private countTranscriptSocket(client: string, delta: 1 | -1): void {
    const n = this.transcriptSocketsOf(client) + delta;
    if (n > 0) this.transcriptSockets.set(client, n);
    else this.transcriptSockets.delete(client);
  }

  /** Accepts a transcript socket whose access was checked for `caller`; `connectedAtSeq` was read before accepting. */
  acceptTranscriptSocket(
    c: Context<AppEnv>,
    transcriptId: string,
    caller: Caller,
    connectedAtSeq: number,
    client: string,
  ): Promise<Response> {
    const log = c.get("log").child({ transcriptId, socket: "transcript" });
    let leave: (() => void) | null = null;
    return this.upgrader().upgradeWebSocket(
      c,
      {
        onOpen: (_e, ws) => {
          const raw = ws.raw!;
          if (this.closing) return raw.close(GOING_AWAY, "Server shutting down");
          openSockets.inc({ socket: "transcript" });
          this.countTranscriptSocket(client, 1);
          const leaveFeed = this.feeds.join(transcriptId, connectedAtSeq, {
            send: sender(raw, log),
            fail: (err) => {
              log.error({ err }, "transcript socket feed failed");
              raw.close(SERVER_ERROR, "Event feed unavailable");
            },
          });
          const unwatch = this.access.add(transcriptId, { caller, close: (code, reason) => raw.close(code, reason) });
          leave = () => {
            unwatch();
            leaveFeed();
          };
        },
        onClose: () => {
          if (!leave) return;
          leave();
          leave = null;
          openSockets.dec({ socket: "transcript" });
          this.countTranscriptSocket(client, -1);
        },
      },
      { onError: (err) => log.error({ err }, "transcript socket error") },
    );
  }

  /** Accepts a user socket: `userId` null is answered with close code 4401 right after the upgrade. */
  /** `expiresAt`: the token's expiry, when the socket is closed (4401) — a socket never outlives its credentials. */
  acceptUserSocket(c: Context<AppEnv>, userId: string | null, expiresAt: Date | null): Promise<Response> {
    const log = c.get("log").child({ userId, socket: "user" });
    let remove: (() => void) | null = null;
    let expiry: NodeJS.Timeout | null = null;
    return this.upgrader().upgradeWebSocket(
      c,
      {
        onOpen: (_e, ws) => {
          const raw = ws.raw!;
          // Accepted first so the client can read the code (a refused handshake carries none).
          if (userId === null) return raw.close(CLOSE_UNAUTHENTICATED, "Not authenticated");
          // A handshake that was under way when shutdown began.
          if (this.closing) return raw.close(GOING_AWAY, "Server shutting down");
          openSockets.inc({ socket: "user" });
          remove = this.hub.add(userId, sender(raw, log));
          if (expiresAt) {
            // setTimeout holds at most ~24.8 days; tokens living longer are cut then (clients reconnect).
            const ms = Math.min(Math.max(0, expiresAt.getTime() - this.opts.clock().getTime()), 2 ** 31 - 1);
            expiry = setTimeout(() => raw.close(CLOSE_UNAUTHENTICATED, "Token expired"), ms);
          }
        },
        onClose: () => {
          if (expiry) clearTimeout(expiry);
          if (!remove) return;
          remove();
          openSockets.dec({ socket: "user" });
        },
      },
      { onError: (err) => log.error({ err }, "user socket error") },
    );
  }

  /** Stops the feeds and closes every socket (1001), cutting off clients that do not answer in time. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.hub.stop();
    this.access.stop();
    const clients = [...(this.nodeWs?.wss.clients ?? [])];
    await Promise.all(
      clients.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
            ws.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(GOING_AWAY, "Server shutting down");
          }),
      ),
    );
  }

  private upgrader(): NodeWebSocket {
    if (!this.nodeWs) throw new Error("Realtime.attach(app) must run first");
    // A handshake that arrives during shutdown is refused rather than left without a feed.
    if (this.closing) throw Unavailable("Server shutting down");
    return this.nodeWs;
  }
}
