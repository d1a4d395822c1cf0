// Runs one or more services in this process with one ops server, and stops them all gracefully on
// SIGTERM/SIGINT (containers run one service; development runs them all together).
import type { z } from "zod";
import { BaseConfig, ConfigError, loadConfig, type Env } from "./config";
import { createLogger } from "./logger";
import { OpsServer } from "./ops-server";
import { startService, type RunningService, type ServiceDefinition } from "./service";

export interface RunningProcess {
  services: RunningService[];
  ops: OpsServer;
  opsPort: number | null;
  stop(): Promise<void>;
}

export async function startProcess(defs: ServiceDefinition<z.ZodObject>[], env: Env = process.env): Promise<RunningProcess> {
  const base = loadConfig(BaseConfig, env);
  const log = createLogger(undefined, base.LOG_LEVEL);
  const ops = new OpsServer();
  const services: RunningService[] = [];
  // Probes answer from the start: alive, and not ready while a service waits for PostgreSQL or NATS.
  let starting: string | null = "starting";
  ops.add({ name: "startup", readiness: async () => (starting ? [starting] : []) });
  const opsPort = base.OPS_PORT > 0 ? await ops.listen(base.OPS_PORT) : null;
  if (opsPort) log.info({ port: opsPort }, "ops server: /livez /readyz /metrics");
  try {
    for (const def of defs) {
      starting = `starting ${def.name}`;
      const s = await startService(def, env, { log, progress: (waitingFor) => (starting = waitingFor ?? `starting ${def.name}`) });
      services.push(s);
      ops.add(s);
    }
    starting = null;
  } catch (e) {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    await ops.close();
    throw e;
  }
  let stopping: Promise<void> | null = null;
  return {
    services,
    ops,
    opsPort,
    stop() {
      stopping ??= (async () => {
        ops.markShuttingDown();
        // Reverse start order: the gateway (started last) stops taking requests first.
        for (const s of [...services].reverse()) await s.stop();
        await ops.close();
      })();
      return stopping;
    },
  };
}

/** Entry point for `scribe up` and each service's main.ts: start, then stop cleanly on a signal. */
export async function runMain(defs: ServiceDefinition<z.ZodObject>[], env: Env = process.env): Promise<void> {
  let running: RunningProcess;
  try {
    running = await startProcess(defs, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(78); // EX_CONFIG
    }
    console.error(e);
    process.exit(1);
  }
  const timeoutMs = loadConfig(BaseConfig, env).SHUTDOWN_TIMEOUT_MS;
  const shutdown = (signal: string) => {
    const log = createLogger(undefined);
    log.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      log.error({ timeoutMs }, "shutdown timed out; exiting");
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    running.stop().then(
      () => process.exit(0),
      (e) => {
        log.error({ err: e }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
