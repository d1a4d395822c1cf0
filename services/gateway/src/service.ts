// The gateway service: serves the public HTTP API, resolves callers from its own users and API keys,
// and talks to services over request/reply only.
import { serve, type ServerType } from "@hono/node-server";
import { ConfigError, QUOTA_MIGRATIONS, SharedVersions, defineService, openStorage, runPeriodically, secretKeyProblem } from "@scribe/kit";
import type { AddressInfo } from "node:net";
import { createApp } from "./app";
import { provisionAdmin } from "./auth/admin";
import { createAuthenticator, type Authenticator } from "./auth/identity";
import { GatewayConfig, authConfigProblems } from "./config";
import { Realtime } from "./realtime/server";
import { deleteExpiredIdempotencyKeys } from "./store";

/** Expired Idempotency-Key answers are ignored at once; this only keeps the table small. */
const IDEMPOTENCY_CLEANUP_MS = 3_600_000;

export const gatewayService = defineService({
  name: "gateway",
  config: GatewayConfig,
  sharedMigrations: [QUOTA_MIGRATIONS],
  async start({ bus, sql, config, log, clock, onStop, addReadinessCheck }) {
    const problems = [...authConfigProblems(config), ...[secretKeyProblem(config.SECRET_KEY)].filter((p) => p !== null)];
    if (problems.length) throw new ConfigError(problems);
    let auth: Authenticator;
    try {
      auth = createAuthenticator({ config, sql, log, now: clock });
    } catch (e) {
      // The one setting only readable at start-up: the key file or text itself.
      if (config.AUTH_BACKEND !== "jwt" || !config.AUTH_JWT_PUBLIC_KEY) throw e;
      throw new ConfigError([`AUTH_JWT_PUBLIC_KEY: not a readable PEM public key or certificate (${(e as Error).message})`]);
    }
    if (config.AUTH_BACKEND === "jwt" && !config.AUTH_JWT_AUDIENCE) {
      log.warn("AUTH_JWT_AUDIENCE is not set: tokens that name an audience are refused");
    }
    await provisionAdmin(sql, config, log, clock());
    log.info({ backend: config.AUTH_BACKEND, publicMode: config.PUBLIC_MODE }, "authentication configured");

    const idempotencyCleanup = runPeriodically(
      "gateway.idempotency_cleanup",
      IDEMPOTENCY_CLEANUP_MS,
      () => deleteExpiredIdempotencyKeys(sql, clock()),
      log,
    );
    onStop(() => idempotencyCleanup.stop());
    const knownVersions = await SharedVersions.open(bus, log);
    onStop(() => knownVersions.close());
    const realtime = new Realtime(bus, log, { pingIntervalMs: config.WS_PING_INTERVAL_MS, clock });
    await realtime.start();
    const app = createApp(
      { bus, sql, config, log, clock, auth, openBucket: (bucket) => openStorage(config, bucket), knownVersions },
      realtime,
    );
    const server: ServerType = await new Promise((resolve, reject) => {
      const s = serve(
        {
          fetch: app.fetch,
          port: config.PORT,
          hostname: config.HOST,
          // Node checks the request time limit every connectionsCheckingInterval (30 s by default):
          // check often enough that a trickling body is cut off close to the limit.
          serverOptions: {
            requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
            headersTimeout: Math.min(60_000, config.HTTP_REQUEST_TIMEOUT_MS),
            connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(config.HTTP_REQUEST_TIMEOUT_MS / 4))),
          },
        },
        () => resolve(s),
      );
      s.once("error", reject);
    });
    realtime.inject(server);
    const port = (server.address() as AddressInfo).port;
    log.info({ port, host: config.HOST }, `gateway listening on http://127.0.0.1:${port}`);
    let listening = true;
    addReadinessCheck(async () => (listening ? null : "http server closed"));
    onStop(async () => {
      listening = false;
      // Stop accepting connections; requests in flight finish, idle keep-alive sockets close now.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if ("closeIdleConnections" in server) server.closeIdleConnections();
      // Upgraded sockets count as open connections: server.close() waits until they are closed too.
      await realtime.close();
      // Requests in flight get half the shutdown's time. A response its client stopped reading (an
      // audio player's stream, a connection a browser left half-open) would hold the stop until its
      // socket timed out (40-55 s seen in the web tests), and the shutdown timeout would then cut
      // off what comes after: the consumers' batches and the outbox.
      let drainTimer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        closed.then(() => true),
        new Promise<false>((resolve) => (drainTimer = setTimeout(() => resolve(false), config.SHUTDOWN_TIMEOUT_MS / 2))),
      ]);
      clearTimeout(drainTimer);
      if (!drained) {
        const open = await new Promise<number>((resolve) => server.getConnections((_, n) => resolve(n ?? 0)));
        log.warn(
          { connections: open, waitedMs: config.SHUTDOWN_TIMEOUT_MS / 2 },
          "requests still in flight at shutdown: closing their connections",
        );
        if ("closeAllConnections" in server) server.closeAllConnections();
        await closed;
      }
    });
    return { port, app, auth };
  },
});
