// Request/reply between the gateway and services over core NATS with queue groups: typed by the
// operation definitions in contracts, errors carried as AppErrors, every request has a deadline.
import { headers, type Msg, type Subscription } from "@nats-io/transport-node";
import type { RpcOp, RpcRequest, RpcResponse } from "@scribe/contracts";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { z } from "zod";
import { AppError, Invalid, Unavailable, isAppError, knownFailure, validationErrors, type SerializedError } from "../errors";
import { metrics } from "../metrics";
import { decodeVersionMarks, encodeVersionMarks, withVersionScope, type VersionMark } from "../consistency/versions";
import type { Bus } from "./connection";

const REQUEST_ID = "Scribe-Request-Id";
const DEADLINE = "Scribe-Deadline";
/** Request: the entity versions the handler must see; reply: the versions it wrote (read-your-writes). */
const VERSIONS = "Scribe-Versions";

type Reply<T> = { ok: true; data: T } | { ok: false; error: SerializedError };

export interface RpcContext {
  requestId: string;
  log: Logger;
  /** Epoch ms after which the caller has given up. */
  deadline: number;
}
export type RpcHandler<O extends RpcOp> = (req: z.infer<O["request"]>, ctx: RpcContext) => Promise<RpcResponse<O>>;

/**
 * A reply serialised (and validated) before the request came, e.g. a cached document: sent as it
 * is, with reply headers, and handed to `rpcCallJson` callers as bytes that nobody parses again.
 */
export class JsonReply {
  constructor(
    /** The reply's data as JSON text. */
    readonly json: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}
export type JsonRpcHandler<O extends RpcOp> = (req: z.infer<O["request"]>, ctx: RpcContext) => Promise<JsonReply>;

/** The reply envelope around data that is sent as JSON text (see `JsonReply`). */
const OK_PREFIX = '{"ok":true,"data":';
const OK_PREFIX_BYTES = new TextEncoder().encode(OK_PREFIX);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class RpcServer {
  private subs: Subscription[] = [];
  private inFlight = new Set<Promise<void>>();

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    /** Queue group: replicas of one service share the load. */
    private readonly queue: string,
  ) {}

  handle<O extends RpcOp>(op: O, handler: RpcHandler<O>): void {
    this.subscribe(op, handler);
  }

  /** Like `handle`, for a handler that answers JSON text it serialised itself (`JsonReply`). */
  handleJson<O extends RpcOp>(op: O, handler: JsonRpcHandler<O>): void {
    this.subscribe(op, handler);
  }

  private subscribe<O extends RpcOp>(op: O, handler: RpcHandler<O> | JsonRpcHandler<O>): void {
    const sub = this.bus.nc.subscribe(this.bus.subject(op.subject), {
      queue: this.queue,
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, op: op.subject }, "rpc subscription error");
          return;
        }
        const p = this.dispatch(op, handler, msg).finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
      },
    });
    this.subs.push(sub);
  }

  private async dispatch<O extends RpcOp>(op: O, handler: RpcHandler<O> | JsonRpcHandler<O>, msg: Msg): Promise<void> {
    const requestId = msg.headers?.get(REQUEST_ID) || randomUUID();
    const deadline = Number(msg.headers?.get(DEADLINE)) || epochMs() + 30_000;
    const log = this.log.child({ requestId, op: op.subject });
    if (epochMs() > deadline) {
      log.warn("request arrived after its deadline; dropped");
      return;
    }
    let reply: Reply<unknown>;
    let text: string | null = null;
    const replyHeaders: Record<string, string> = {};
    let written: VersionMark[] = [];
    // Reading through to an owner is part of this request: same id, what is left of its deadline.
    const ask = (subject: string, request: unknown) =>
      requestReply(this.bus, subject, request, { requestId, timeoutMs: Math.max(1, deadline - epochMs()) });
    try {
      const body: unknown = msg.data.length ? JSON.parse(decoder.decode(msg.data)) : {};
      const parsed = op.request.safeParse(body);
      if (!parsed.success) throw Invalid(validationErrors(parsed.error.issues, ["body"]));
      const required = decodeVersionMarks(msg.headers?.get(VERSIONS));
      const handled = await withVersionScope<unknown>(required, ask, () =>
        handler(parsed.data as z.infer<O["request"]>, { requestId, log, deadline }),
      );
      written = handled.written;
      reply = { ok: true, data: handled.result };
      if (handled.result instanceof JsonReply) {
        text = OK_PREFIX + handled.result.json + "}";
        Object.assign(replyHeaders, handled.result.headers);
      }
      metrics.rpcHandled.inc({ op: op.subject, outcome: "ok" });
    } catch (e) {
      const known = knownFailure(e);
      const error = isAppError(known) ? known : new AppError("internal", "Internal Server Error", { cause: e });
      if (!isAppError(known)) log.error({ err: e }, "rpc handler failed");
      else if (error.kind === "unavailable") log.warn({ err: e, kind: error.kind }, "rpc handler could not reach a dependency");
      else log.debug({ kind: error.kind, detail: error.detail }, "rpc handler refused");
      metrics.rpcHandled.inc({ op: op.subject, outcome: error.kind });
      reply = { ok: false, error: error.toJSON() };
    }
    if (!msg.reply) return;
    const data = encoder.encode(text ?? JSON.stringify(reply));
    if (written.length === 0 && Object.keys(replyHeaders).length === 0) msg.respond(data);
    else {
      const h = headers();
      for (const [name, value] of Object.entries(replyHeaders)) h.set(name, value);
      if (written.length) h.set(VERSIONS, encodeVersionMarks(written));
      msg.respond(data, { headers: h });
    }
  }

  /** Stop taking requests, let those in flight finish and answer. */
  async stop(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => {})));
    await Promise.all([...this.inFlight]);
    this.subs = [];
  }
}

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
  /** Entity versions the handler must see (read-your-writes). */
  versions?: readonly VersionMark[];
  /** Receives the entity versions the handler wrote. */
  onVersions?: (written: VersionMark[]) => void;
}

/** Call an operation; resolves with its parsed response or throws the service's AppError. */
export async function rpcCall<O extends RpcOp>(bus: Bus, op: O, req: RpcRequest<O>, opts: CallOptions = {}): Promise<RpcResponse<O>> {
  return op.response.parse(await requestReply(bus, op.subject, req, opts)) as RpcResponse<O>;
}

/**
 * Milliseconds since the epoch, for deadlines that travel between processes in a header: only wall
 * time means the same on both ends (hosts keep it in sync), so it is not the injected clock, which
 * tests move to decide rules, not to expire requests in flight.
 */
// eslint-disable-next-line no-restricted-syntax
const epochMs = (): number => Date.now();

/**
 * Call an operation served with `handleJson`: the reply's data as the JSON bytes the service sent
 * (not parsed or validated here: the service validated them when it serialised them) and the reply
 * headers it set, or the service's AppError thrown.
 */
export async function rpcCallJson<O extends RpcOp>(
  bus: Bus,
  op: O,
  req: RpcRequest<O>,
  opts: CallOptions = {},
): Promise<{ json: Uint8Array; headers: (name: string) => string | undefined }> {
  const msg = await exchange(bus, op.subject, req, opts);
  const isOk = msg.data.length > OK_PREFIX_BYTES.length && OK_PREFIX_BYTES.every((b, i) => msg.data[i] === b);
  if (!isOk) throw replyError(msg);
  received(msg, opts);
  return { json: msg.data.subarray(OK_PREFIX_BYTES.length, msg.data.length - 1), headers: (name) => msg.headers?.get(name) || undefined };
}

/** The AppError of a refusing reply. */
function replyError(msg: Msg): AppError {
  const reply = JSON.parse(decoder.decode(msg.data)) as Reply<unknown>;
  if (reply.ok) return new AppError("internal", "Unexpected reply");
  const { kind, detail, retry_after_seconds: retryAfterSeconds } = reply.error;
  return new AppError(kind, detail, { ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
}

/** The versions a reply reports as written, to the caller's `onVersions`. */
function received(msg: Msg, opts: CallOptions): void {
  const written = decodeVersionMarks(msg.headers?.get(VERSIONS));
  if (written.length) opts.onVersions?.(written);
}

/** One request/reply exchange on `subject`; the reply's data unparsed, or the service's AppError thrown. */
async function requestReply(bus: Bus, subject: string, req: unknown, opts: CallOptions): Promise<unknown> {
  const msg = await exchange(bus, subject, req, opts);
  const reply = JSON.parse(decoder.decode(msg.data)) as Reply<unknown>;
  if (!reply.ok) throw replyError(msg);
  received(msg, opts);
  return reply.data;
}

/** Send a request and wait for its reply message; unreachable services and timeouts as AppErrors. */
async function exchange(bus: Bus, subject: string, req: unknown, opts: CallOptions): Promise<Msg> {
  const timeout = opts.timeoutMs ?? 10_000;
  const h = headers();
  h.set(REQUEST_ID, opts.requestId ?? randomUUID());
  h.set(DEADLINE, String(epochMs() + timeout));
  if (opts.versions?.length) h.set(VERSIONS, encodeVersionMarks(opts.versions));
  const service = subject.split(".")[1] ?? subject;
  let msg: Msg;
  try {
    msg = await bus.nc.request(bus.subject(subject), encoder.encode(JSON.stringify(req)), { timeout, headers: h });
  } catch (e) {
    const err = e as Error;
    if (err.name === "TimeoutError") {
      throw new AppError("timeout", `The ${service} service did not answer in time`, { cause: e });
    }
    if (err.name === "NoRespondersError" || (err as { isNoResponders?: () => boolean }).isNoResponders?.()) {
      throw Unavailable(`The ${service} service is unavailable`, e);
    }
    throw Unavailable(`The ${service} service could not be reached`, e);
  }
  return msg;
}
