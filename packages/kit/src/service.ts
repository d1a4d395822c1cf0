// Service bootstrap: config, logger, database (own schema, migrations), bus (streams, outbox relay,
// request/reply, consumers), readiness, and a graceful stop that finishes in-flight work.
import { systemClock, type Clock } from "./clock";
import { z } from "zod";
import type { Logger } from "pino";
import { ensureStreams } from "./bus/streams";
import { connectBus, type Bus } from "./bus/connection";
import { ConsumerRunner, type ConsumerOptions } from "./bus/consumer";
import { OutboxRelay } from "./bus/outbox";
import { RpcServer } from "./bus/rpc";
import { BaseConfig, loadConfig, type Env } from "./config";
import { connectDb, pingDb, type Sql } from "./db";
import { LeaseSession } from "./lease";
import { createLogger } from "./logger";
import { migrate, serviceMigrations } from "./migrate";
import type { ReadinessSource } from "./ops-server";
import { databaseNotUpYet, natsNotUpYet, untilConnected, type StartupProgress } from "./startup";

export interface ServiceRuntime<C> {
  name: string;
  config: BaseConfig & C;
  log: Logger;
  sql: Sql;
  bus: Bus;
  rpc: RpcServer;
  /** The time handlers and jobs decide with (kit's systemClock unless the service is started with another). */
  clock: Clock;
  /** Declare an event consumer; it starts after `start` returns and stops before the relay. */
  consume(
    opts: Omit<ConsumerOptions, "bus" | "sql" | "log" | "maxDeliver" | "ackWaitMs"> &
      Partial<Pick<ConsumerOptions, "maxDeliver" | "ackWaitMs">>,
  ): ConsumerRunner;
  /** Work to stop on shutdown (jobs, servers), run after request/reply stops and before the bus closes. */
  onStop(fn: () => Promise<void>): void;
  addReadinessCheck(fn: () => Promise<string | null>): void;
}

export interface ServiceDefinition<S extends z.ZodObject = z.ZodObject> {
  /** Also the service's Postgres schema and migrations folder. */
  name: string;
  config?: S;
  /** Shared migration folders applied after the kit's and before the service's own (e.g. `_workflow`). */
  sharedMigrations?: readonly string[];
  /** Session settings of the service's database connections (see DbOptions.settings). */
  dbSettings?: Record<string, string>;
  /** Registers handlers and consumers; may return values others need (e.g. the HTTP port bound). */
  start(rt: ServiceRuntime<z.infer<S>>): Promise<void | Record<string, unknown>>;
}

export function defineService<S extends z.ZodObject>(def: ServiceDefinition<S>): ServiceDefinition<S> {
  return def;
}

export interface RunningService extends ReadinessSource {
  name: string;
  exports: Record<string, unknown>;
  runtime: ServiceRuntime<unknown>;
  stop(): Promise<void>;
}

export function serviceConfig<S extends z.ZodObject>(def: ServiceDefinition<S>, env: Env): BaseConfig & z.infer<S> {
  const schema = def.config ? BaseConfig.extend(def.config.shape) : BaseConfig;
  return loadConfig(schema, env) as BaseConfig & z.infer<S>;
}

export async function startService<S extends z.ZodObject>(
  def: ServiceDefinition<S>,
  env: Env = process.env,
  opts: {
    log?: Logger;
    clock?: Clock;
    /** Told what start-up waits for (PostgreSQL, NATS), and null once connected. */
    progress?: StartupProgress;
    /** Gives up waiting for dependencies (the process is stopping). */
    signal?: AbortSignal;
  } = {},
): Promise<RunningService> {
  const config = serviceConfig(def, env);
  const log = opts.log ? opts.log.child({ service: def.name }) : createLogger(def.name, config.LOG_LEVEL);
  const sql = connectDb(config.DATABASE_URL, { schema: def.name, max: config.DATABASE_POOL_SIZE, settings: def.dbSettings });
  const cleanup: (() => Promise<void>)[] = [async () => void (await sql.end({ timeout: 5 }))];
  try {
    const waiting = {
      log,
      backoff: { initialMs: Math.min(500, config.STARTUP_BACKOFF_MAX_MS), maxMs: config.STARTUP_BACKOFF_MAX_MS },
      progress: opts.progress && ((what: string | null) => opts.progress!(what && `${def.name}: ${what}`)),
      signal: opts.signal,
    };
    await untilConnected(
      "PostgreSQL",
      async () => {
        if (config.MIGRATE_ON_START)
          await migrate(sql, { schema: def.name, migrations: serviceMigrations(def.name, { shared: def.sharedMigrations }), log });
        else await pingDb(sql);
      },
      { ...waiting, retryable: databaseNotUpYet },
    );
    // Everything after the connection talks to NATS too (the outbox's stream, a service's buckets and
    // subscriptions, its consumers): a JetStream request that times out there (a cluster electing a
    // leader, a node restarting) is the same wait as a refused connection. The attempt is undone and
    // the service started again on a new connection, so nothing of a failed attempt stays behind.
    const started = await untilConnected("NATS", () => startOnBus(def, { config, log, sql, clock: opts.clock ?? systemClock }), {
      ...waiting,
      retryable: (e) => natsNotUpYet(e) || databaseNotUpYet(e),
    });
    const { bus, rpc, runtime, exports, consumers, stopHooks, checks } = started;
    cleanup.unshift(...started.cleanup);
    opts.progress?.(null);
    log.info({ consumers: consumers.map((c) => c.durable) }, "service started");

    let stopping: Promise<void> | null = null;
    return {
      name: def.name,
      exports,
      runtime: runtime as ServiceRuntime<unknown>,
      async readiness() {
        const problems: string[] = [];
        await pingDb(sql).catch((e: Error) => problems.push(`database: ${e.message}`));
        if (bus.nc.isClosed()) problems.push("nats: connection closed");
        for (const check of checks) {
          const p = await check().catch((e: Error) => e.message);
          if (p) problems.push(p);
        }
        return problems;
      },
      stop() {
        stopping ??= (async () => {
          log.info("stopping: no new requests, finishing in-flight work");
          await stopInOrder({ rpc, stopHooks, consumers, cleanup }, (e, what) => log.error({ err: e }, `${what} failed`));
          log.info("stopped");
        })();
        return stopping;
      },
    };
  } catch (e) {
    for (const fn of cleanup) await fn().catch(() => {});
    throw e;
  }
}

interface StartedOnBus<S extends z.ZodObject> {
  bus: Bus;
  rpc: RpcServer;
  runtime: ServiceRuntime<z.infer<S>>;
  exports: Record<string, unknown>;
  consumers: ConsumerRunner[];
  stopHooks: (() => Promise<void>)[];
  checks: (() => Promise<string | null>)[];
  /** Closes the relay, the leases' session, then the connection (in that order). */
  cleanup: (() => Promise<void>)[];
}

/** One attempt at the part of start-up that needs NATS; a failed attempt undoes what it started. */
async function startOnBus<S extends z.ZodObject>(
  def: ServiceDefinition<S>,
  deps: { config: BaseConfig & z.infer<S>; log: Logger; sql: Sql; clock: Clock },
): Promise<StartedOnBus<S>> {
  const { config, log, sql, clock } = deps;
  const bus = await connectBus({
    url: config.NATS_URL,
    prefix: config.NATS_PREFIX,
    name: `scribe-${def.name}`,
    streamReplicas: config.NATS_STREAM_REPLICAS,
  });
  const relay = new OutboxRelay({
    sql,
    bus,
    schema: def.name,
    log,
    pollMs: config.OUTBOX_POLL_MS,
    refusedRetryMs: config.OUTBOX_REFUSED_RETRY_MS,
  });
  const rpc = new RpcServer(bus, log, `scribe-${def.name}`);
  const consumers: ConsumerRunner[] = [];
  const stopHooks: (() => Promise<void>)[] = [];
  const checks: (() => Promise<string | null>)[] = [];
  // Exclusive consumers' leases, on a connection of their own (opened when one is first asked for).
  let leases: LeaseSession | null = null;
  const leaseSession = () =>
    (leases ??= new LeaseSession(
      connectDb(config.DATABASE_URL, { schema: def.name, max: 1, idleTimeout: 0, applicationName: `scribe-${def.name}-leases` }),
    ));
  const closeLeases = async () => void (await leases?.close());
  const runtime: ServiceRuntime<z.infer<S>> = {
    name: def.name,
    config,
    log,
    sql,
    bus,
    rpc,
    clock,
    consume: (c) => {
      const runner = new ConsumerRunner({
        maxDeliver: config.CONSUMER_MAX_DELIVER,
        ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
        ...c,
        bus,
        sql,
        log,
        clock,
        leases: c.exclusive ? leaseSession() : undefined,
      });
      consumers.push(runner);
      return runner;
    },
    onStop: (fn) => void stopHooks.push(fn),
    addReadinessCheck: (fn) => void checks.push(fn),
  };
  let relayStarted = false;
  // A relay that never started has nothing to stop (its stop would drain the outbox over a failing connection).
  const cleanup = [async () => void (relayStarted && (await relay.stop())), closeLeases, () => bus.close()];
  try {
    await ensureStreams(bus);
    await relay.start();
    relayStarted = true;
    const exports = (await def.start(runtime)) ?? {};
    for (const c of consumers) await c.start();
    return {
      bus,
      rpc,
      runtime,
      exports,
      consumers,
      stopHooks,
      checks,
      cleanup,
    };
  } catch (e) {
    log.warn({ err: (e as Error).message }, "start-up failed: undoing what this attempt started");
    await stopInOrder({ rpc, stopHooks, consumers, cleanup }, () => {});
    throw e;
  }
}

/**
 * A service's parts stopped in the order that loses nothing: no new requests (those in flight
 * answer), the service's own stop hooks (last registered first), the consumers' batches, then
 * `cleanup` (the relay, the connection, the database).
 */
async function stopInOrder(
  parts: {
    rpc: RpcServer;
    stopHooks: (() => Promise<void>)[];
    consumers: ConsumerRunner[];
    cleanup: (() => Promise<void>)[];
  },
  failed: (e: unknown, what: string) => void,
): Promise<void> {
  await parts.rpc.stop().catch((e) => failed(e, "request/reply stop"));
  for (const fn of [...parts.stopHooks].reverse()) await fn().catch((e) => failed(e, "stop hook"));
  await Promise.all(parts.consumers.map((c) => c.stop().catch((e) => failed(e, "consumer stop"))));
  for (const fn of parts.cleanup) await fn().catch((e) => failed(e, "cleanup"));
}
