// The public HTTP API: middleware, routes and error mapping, as one Hono app (testable without a socket).
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "./http/body-limit";
import { corsHeaders } from "./http/cors";
import { errorResponse, validationHook } from "./http/errors";
import { identity, requestContext, type AppEnv, type GatewayDeps } from "./http/context";
import { authRoutes } from "./routes/auth";
import { calendarRoutes } from "./routes/calendar";
import { mediaRoutes } from "./routes/media";
import { meetingRoutes } from "./routes/meetings";
import { notificationRoutes } from "./routes/notifications";
import { roomRoutes } from "./routes/rooms";
import { searchRoutes } from "./routes/search";
import { systemRoutes } from "./routes/system";
import { liveRoutes } from "./routes/live";
import { uploadRoutes } from "./routes/upload";
import { userRoutes } from "./routes/users";
import { transcriptReadRoutes } from "./routes/transcripts-read";
import { realtimeRoutes } from "./realtime/routes";
import type { Realtime } from "./realtime/server";
import { transcriptWriteRoutes } from "./routes/transcripts-write";
import { inputGuard } from "./http/params";
import { webAppRoutes } from "./routes/web-app";
import { appConfigRoutes } from "./routes/app-config";

/** `realtime` adds the WebSocket upgrades (the service passes it; without it the paths answer plain GETs only). */
export function createApp(deps: GatewayDeps, realtime?: Realtime): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", requestContext(deps));
  const origins = deps.config.CORS_ORIGIN.split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  app.use(
    "*",
    corsHeaders({
      origin: origins.includes("*") ? (origin) => (deps.config.CORS_ALLOW_CREDENTIALS ? origin : "*") : origins,
      credentials: deps.config.CORS_ALLOW_CREDENTIALS,
      allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      // Scribe-Versions: a web app carries the versions it wrote to the next request (read-your-writes).
      exposeHeaders: [
        "content-type",
        "accept-ranges",
        "content-length",
        "content-range",
        "content-encoding",
        "x-request-id",
        "scribe-versions",
        "etag",
        // A create answered again for its Idempotency-Key.
        "idempotent-replayed",
      ],
    }),
  );
  // Every route's body is bounded by what it is for, whatever the content type says.
  app.use("*", bodyLimit(deps.config));
  app.use("/v1/*", identity());
  app.use("/v1/*", inputGuard(app));
  app.onError((err, c) => errorResponse(err, c, c.get("log") ?? deps.log));
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));

  systemRoutes(app, { metricsOnApiPort: deps.config.METRICS_ON_API_PORT });
  authRoutes(app, deps);
  userRoutes(app);
  roomRoutes(app);
  // Before meetingRoutes: /v1/rooms/{room_name}/meetings/upcoming would otherwise match /meetings/{meeting_id}.
  calendarRoutes(app);
  meetingRoutes(app);
  notificationRoutes(app);
  mediaRoutes(app);
  uploadRoutes(app);
  liveRoutes(app);
  // Before transcriptReadRoutes: /v1/transcripts/search would otherwise match /v1/transcripts/{transcript_id}.
  searchRoutes(app);
  realtimeRoutes(app, realtime);
  transcriptReadRoutes(app);
  transcriptWriteRoutes(app);
  appConfigRoutes(app, deps.config, deps.log);
  // Last: its SPA fallback answers every GET no API route took.
  webAppRoutes(app);
  return app;
}
