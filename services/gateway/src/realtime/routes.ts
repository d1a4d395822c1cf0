// The two WebSocket paths (api.md §2.18): a WebSocket upgrade runs the handshake checks and is
// accepted or refused; a plain GET answers 426 and is described in OpenAPI with the messages the
// socket sends, for generated clients (the reference's stub fails with a 500).
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { ANONYMOUS, projectionOps } from "@scribe/contracts";
import { TooManyRequests, isAppError, streamBounds } from "@scribe/kit";
import { rateLimitKey, requestClientAddress, trustedProxies } from "../auth/client-address";
import type { Context } from "hono";
import { decodeJwt } from "jose";
import { call, type AppEnv } from "../http/context";
import { json } from "../routes/responses";
import { TranscriptWsMessage, UserWsMessage } from "./messages";
import { bearerFromProtocols } from "./protocol";
import type { Realtime } from "./server";

const UpgradeRequired = z.object({ detail: z.string() });
const upgradeRequired = { 426: json(UpgradeRequired, "Not a WebSocket handshake: open a WebSocket on this path") };
const DETAIL = "Upgrade Required: this path is a WebSocket";

const isUpgrade = (c: Context<AppEnv>) => c.req.header("upgrade")?.toLowerCase() === "websocket";

/** When a verified token stops being valid (its `exp`), or null when it never does. */
function tokenExpiry(token: string): Date | null {
  const { exp } = decodeJwt(token);
  return typeof exp === "number" ? new Date(exp * 1000) : null;
}

export function realtimeRoutes(app: OpenAPIHono<AppEnv>, realtime: Realtime | undefined): void {
  if (realtime) {
    realtime.attach(app);
    app.get("/v1/transcripts/:transcript_id/events", async (c, next) => {
      if (!isUpgrade(c)) return next();
      const id = c.req.param("transcript_id");
      const { config } = c.get("deps");
      // Each socket costs a replay read and a slot in its transcript's feed: one client may not open them without bound (issue 15.9).
      const client = rateLimitKey(requestClientAddress(c, trustedProxies(config.TRUSTED_PROXIES)));
      if (realtime.transcriptSocketsOf(client) >= config.WS_MAX_TRANSCRIPT_SOCKETS_PER_CLIENT) {
        throw TooManyRequests("Too many transcript event sockets from this client");
      }
      const token = bearerFromProtocols(c.req.header("sec-websocket-protocol"));
      // §2.3: optional auth, by the bearer subprotocol only; a token that does not verify is a 401.
      const caller = token ? await c.get("deps").auth.verifyToken(token) : ANONYMOUS;
      c.set("caller", caller);
      // READ access (§1.7) before accepting: 404/403 refuse the handshake. The participants query is
      // the projection's cheapest read that applies exactly that rule.
      await call(c, projectionOps.participants, { id });
      // Read before the 101 goes out: whatever the client sees published after it connected is live.
      const connectedAtSeq = (await streamBounds(c.get("deps").bus, "TRANSCRIPTS")).last;
      return realtime.acceptTranscriptSocket(c, id, caller, connectedAtSeq, client);
    });
    app.get("/v1/events", async (c, next) => {
      if (!isUpgrade(c)) return next();
      const token = bearerFromProtocols(c.req.header("sec-websocket-protocol"));
      const caller = token ? await c.get("deps").auth.verifyToken(token).catch(unauthenticatedAsNull) : null;
      return realtime.acceptUserSocket(c, caller?.userId ?? null, caller && token ? tokenExpiry(token) : null);
    });
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/events",
      operationId: "v1_transcript_get_websocket_events",
      tags: ["transcripts"],
      description: "WebSocket (subprotocol `bearer, <token>` for auth): the transcript's stored events, then live ones.",
      request: { params: z.object({ transcript_id: z.string() }) },
      responses: { 200: json(TranscriptWsMessage, "The messages the WebSocket sends"), ...upgradeRequired },
    }),
    (c) => c.json({ detail: DETAIL }, 426),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/events",
      operationId: "v1_user_get_websocket_events",
      tags: ["user"],
      description: "WebSocket (subprotocol `bearer, <token>`, required): notifications about the caller's transcripts.",
      responses: { 200: json(UserWsMessage, "The messages the WebSocket sends"), ...upgradeRequired },
    }),
    (c) => c.json({ detail: DETAIL }, 426),
  );
}

/** A token that does not verify is answered like a missing one (4401); a provider outage still fails. */
function unauthenticatedAsNull(e: unknown): null {
  if (isAppError(e) && e.kind === "unauthorized") return null;
  throw e;
}
