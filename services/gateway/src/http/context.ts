// Per-request context: request id, a logger carrying it, the resolved caller, and typed calls to services.
import type { Context, MiddlewareHandler } from "hono";
import { randomUUID } from "node:crypto";
import type { Caller, RpcOp, RpcRequest, RpcResponse } from "@scribe/contracts";
import { ANONYMOUS } from "@scribe/contracts";
import {
  Unauthorized,
  anonymousMayUsePublicRoutes,
  decodeVersionMarks,
  encodeVersionMarks,
  lookupValuesOf,
  metrics,
  rpcCall,
  rpcCallJson,
  type CallOptions,
  type SharedVersions,
  type VersionMark,
  type BaseConfig,
  type Clock,
  type Bus,
  type Logger,
  type ObjectStorage,
  type Sql,
} from "@scribe/kit";
import type { Authenticator } from "../auth/identity";
import type { GatewayConfig } from "../config";
import { setAnswerHeader } from "./answer-headers";

export interface GatewayDeps {
  bus: Bus;
  /** The gateway's own schema: users and API keys. */
  sql: Sql;
  config: GatewayConfig & BaseConfig;
  log: Logger;
  /** The time routes decide with (the service's clock). */
  clock: Clock;
  auth: Authenticator;
  /** A bucket of the configured object storage (media routes read where services point them). */
  openBucket(bucket: string): ObjectStorage;
  /** Entity versions written through any gateway replica, shared by every client (read-your-writes). */
  knownVersions: SharedVersions;
}

/**
 * Read-your-writes header: answered with the versions a request wrote, and taken back from clients
 * so their next request sees those writes whichever gateway replica serves it.
 */
export const VERSIONS_HEADER = "Scribe-Versions";

export type AppEnv = {
  Variables: { requestId: string; log: Logger; caller: Caller; deps: GatewayDeps };
};
export type AppContext = Context<AppEnv>;

export function requestContext(deps: GatewayDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    const log = deps.log.child({ requestId });
    c.set("requestId", requestId);
    c.set("log", log);
    c.set("deps", deps);
    const started = process.hrtime.bigint();
    await next();
    setAnswerHeader(c, "x-request-id", requestId);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = c.req.routePath || "unmatched";
    metrics.httpRequests.inc({ method: c.req.method, route, status: String(c.res.status) });
    metrics.httpDuration.observe({ method: c.req.method, route }, seconds);
    log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(seconds * 1000) }, "request");
  };
}

/**
 * Routes that read no credentials (auth level `none` in api.md): a stale or foreign token sent along
 * must not turn a login into a 401. Routes of that level add their path here.
 */
export const CREDENTIAL_FREE_PATHS = new Set<string>(["/v1/auth/login", "/v1/config"]);

/** Resolve the caller for every request; a credential that does not verify is a 401 everywhere. */
export function identity(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (CREDENTIAL_FREE_PATHS.has(c.req.path)) {
      c.set("caller", ANONYMOUS);
      return next();
    }
    const caller = await c.get("deps").auth.resolve({
      authorization: c.req.header("authorization"),
      apiKey: c.req.header("x-api-key") || undefined,
    });
    c.set("caller", caller);
    await next();
  };
}

/** Route needs a signed-in caller (checked before the body is validated, as the reference does). */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("caller").userId === null) throw Unauthorized();
  await next();
};

/** Route needs a signed-in caller unless PUBLIC_MODE is on (or AUTH_BACKEND=none, which has no users). */
export const requireUserUnlessPublic: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get("caller").userId === null && !anonymousMayUsePublicRoutes(c.get("deps").config)) throw Unauthorized();
  await next();
};

/** Call a service operation on behalf of this request's caller (`timeoutMs` for known-long operations). */
export async function call<O extends RpcOp>(
  c: AppContext,
  op: O,
  req: Omit<RpcRequest<O>, "caller">,
  opts: { timeoutMs?: number } = {},
): Promise<RpcResponse<O>> {
  return onBehalfOf(c, req, opts, (request, options) => rpcCall(c.get("deps").bus, op, request as RpcRequest<O>, options));
}

/** `call` for an operation served as JSON text (`handleJson`): its bytes to pass on unparsed, and its reply headers. */
export async function callJson<O extends RpcOp>(
  c: AppContext,
  op: O,
  req: Omit<RpcRequest<O>, "caller">,
  opts: { timeoutMs?: number } = {},
): Promise<Awaited<ReturnType<typeof rpcCallJson>>> {
  return onBehalfOf(c, req, opts, (request, options) => rpcCallJson(c.get("deps").bus, op, request as RpcRequest<O>, options));
}

/** A request to a service as this request's caller, with the versions it must see; records the versions it wrote. */
async function onBehalfOf<T>(
  c: AppContext,
  req: object,
  opts: { timeoutMs?: number },
  send: (request: object, options: CallOptions) => Promise<T>,
): Promise<T> {
  const { config, knownVersions } = c.get("deps");
  const fromClient = decodeVersionMarks(c.req.header(VERSIONS_HEADER));
  const values = lookupValuesOf(req);
  const versions: VersionMark[] = [...knownVersions.marksFor(values), ...fromClient.filter((m) => values.includes(m.value))];
  let written: VersionMark[] = [];
  const response = await send(
    { ...req, caller: c.get("caller") },
    {
      requestId: c.get("requestId"),
      timeoutMs: opts.timeoutMs ?? config.RPC_TIMEOUT_MS,
      versions,
      onVersions: (marks) => (written = marks),
    },
  );
  if (written.length) {
    // Shared with every replica before the writer hears of success: the next request, wherever
    // it lands, passes these versions along.
    await knownVersions.record(written);
    c.header(VERSIONS_HEADER, encodeVersionMarks(written));
  }
  return response;
}
