// The one outgoing HTTP client (undici): webhooks, ICS feeds, team chat, model backends and video
// platforms all call out through it. Every exchange has a deadline and a bounded answer; redirects
// are followed only when asked (GET/HEAD, credentials dropped across origins); the retry rule of
// ./retry.ts decides about further attempts. For URLs users typed in, the SSRF guard (decisions,
// Security) refuses literal addresses up front and checks every address a host name resolves to at
// connection time, on every redirect hop, so DNS cannot swap in another address between check and use.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, request, type Dispatcher, type FormData } from "undici";
import { systemClock, type Clock } from "../clock";
import { nonPublicAddressKind, type AddressKind } from "./addresses";
import { nextRetryDelay, NO_RETRY, type AttemptOutcome, type RetryPolicy } from "./retry";

export type HttpErrorCode = "invalid_url" | "blocked_address" | "timeout" | "too_large" | "too_many_redirects" | "network" | "aborted";

/** An exchange that ended without a usable answer; `message` is written for whoever set the URL. */
export class HttpError extends Error {
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly details: {
      /** The host asked for (`host:port` as in the URL). */
      host?: string;
      /** Blocked: the address refused and the kind of range it is in. */
      address?: string;
      addressKind?: AddressKind;
      /** Network: the system's error code (ECONNREFUSED, ENOTFOUND, …) or message. */
      reason?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: details.cause });
    this.name = "HttpError";
  }
  /** Milliseconds from the first attempt to the failure. */
  durationMs = 0;
  attempts = 1;
}

/** Where a guarded client may connect to: null to allow, else the kind of range refused. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the usual kinds; a policy may add its own
export type AddressPolicy = (address: string) => AddressKind | string | null;

export type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface SsrfGuard {
  /** ALLOW_PRIVATE_URLS: loopback, private and link-local targets are allowed (tests, local demos). */
  allowPrivate: boolean;
  /** Tests only: decide differently which addresses are refused. */
  addressPolicy?: AddressPolicy;
  /** Tests only: resolve made-up names (default: the system resolver). */
  resolve?: Resolver;
}

export interface HttpClientOptions {
  /**
   * The SSRF guard, on unless `false`. Turn it off only for endpoints the operator configured
   * (Zulip, SMTP, model backends, video platforms), never for URLs users typed in.
   */
  guard?: SsrfGuard | false;
  /** Deadline of one attempt: connecting, sending, every redirect hop and reading the answer. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** Largest answer read (see `oversized`). */
  maxBodyBytes?: number;
  /** Redirects followed for GET/HEAD; 0 makes a 3xx an answer like any other. */
  maxRedirects?: number;
  userAgent?: string;
  /** Attempts and backoff (default: one attempt). */
  retry?: RetryPolicy;
  /** Reads the time a Retry-After date is measured against (the service's clock). */
  clock?: Clock;
}

export type RequestBody = string | Uint8Array | FormData;

export interface HttpRequest {
  method?: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  /** A factory when the body cannot be sent twice (multipart): called once per attempt. */
  body?: RequestBody | (() => RequestBody);
  signal?: AbortSignal;
  /** Safe to repeat after it may have reached the server; default: GET, HEAD, PUT and DELETE are. */
  idempotent?: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** An answer larger than maxBodyBytes: an error (default), or its first maxBodyBytes. */
  oversized?: "error" | "truncate";
  retry?: RetryPolicy;
  /** Told before each further attempt (for logs). */
  onRetry?: (info: { attempt: number; delayMs: number; problem: string }) => void;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The answer was longer than maxBodyBytes and cut (oversized: "truncate"). */
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
  redirects: number;
  attempts: number;
  /** From the first attempt to the end of the answer. */
  durationMs: number;
}

export interface HttpClient {
  request(url: string, req?: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export const HTTP_DEFAULTS = {
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxBodyBytes: 10 * 1024 * 1024,
  maxRedirects: 0,
  userAgent: "Scribe/1.0",
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);
/** Credentials meant for one origin are not carried to another one by a redirect. */
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];
/** Failures before a connection existed: the request cannot have reached the server. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** The guard's default: public addresses only, unless `allowPrivate`. */
export function publicAddressPolicy(allowPrivate: boolean): AddressPolicy {
  return (address) => (allowPrivate ? null : nonPublicAddressKind(address));
}

function blocked(host: string, address: string, kind: string): HttpError {
  const shown = host === address ? address : `${host} (${address})`;
  return new HttpError(
    "blocked_address",
    `Refused to connect to ${shown}: ${kind} address; loopback, private and link-local addresses are not allowed (ALLOW_PRIVATE_URLS)`,
    { host, address, addressKind: kind as AddressKind },
  );
}

/**
 * Parse a URL and refuse what can be refused without resolving it: schemes other than http(s) and
 * literal addresses the policy forbids. Host names are checked when resolved.
 */
export function checkOutgoingUrl(raw: string, policy: AddressPolicy | null): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError("invalid_url", `Not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new HttpError("invalid_url", `Unsupported URL scheme ${url.protocol.replace(/:$/, "")} (http or https only)`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (policy && isIP(host)) {
    const kind = policy(host);
    if (kind) throw blocked(host, host, kind);
  }
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
const systemResolve: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for net.connect that resolves every address and refuses the host if any is forbidden. */
function guardedLookup(policy: AddressPolicy, resolve: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    resolve(hostname, { all: true, family, hints: options.hints ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const kind = policy(a.address);
        // Every address is checked: a name that resolves to one public and one private address
        // could otherwise be steered to the private one by the connection's address selection.
        if (kind) return callback(blocked(hostname, a.address, kind) as unknown as NodeJS.ErrnoException, []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }), []);
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

function findCause<T>(e: unknown, match: (x: unknown) => x is T): T | null {
  for (let cur: unknown = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (match(cur)) return cur;
  }
  return null;
}
const isHttpError = (x: unknown): x is HttpError => x instanceof HttpError;
const hasCode = (x: unknown): x is { code: string } => typeof (x as { code?: unknown })?.code === "string";

function flattenHeaders(raw: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** Drop a body we will not read (its abort error has nobody to go to). */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on("error", () => {});
  res.body.destroy();
}

async function readLimited(
  res: Dispatcher.ResponseData,
  limit: number,
  oversized: "error" | "truncate",
): Promise<{ body: Buffer; truncated: boolean }> {
  const declared = Number(res.headers["content-length"]);
  if (oversized === "error" && Number.isFinite(declared) && declared > limit) {
    discard(res);
    throw new HttpError("too_large", `Response is larger than ${limit} bytes (${declared} announced)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (size + buf.length > limit) {
      discard(res);
      if (oversized === "error") throw new HttpError("too_large", `Response is larger than ${limit} bytes`);
      chunks.push(buf.subarray(0, limit - size));
      return { body: Buffer.concat(chunks), truncated: true };
    }
    size += buf.length;
    chunks.push(buf);
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
function withoutKeys(h: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !keys.includes(k)));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new HttpError("aborted", "Request cancelled"));
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new HttpError("aborted", "Request cancelled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? HTTP_DEFAULTS.maxRedirects;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const userAgent = options.userAgent ?? HTTP_DEFAULTS.userAgent;
  const clock = options.clock ?? systemClock;
  const guard = options.guard === undefined ? { allowPrivate: false } : options.guard;
  const policy = guard ? (guard.addressPolicy ?? publicAddressPolicy(guard.allowPrivate)) : null;
  // Every connection of this agent resolves through the guard, so no request can skip it.
  const agent = new Agent({
    keepAliveTimeout: 4_000,
    connect: {
      timeout: options.connectTimeoutMs ?? Math.min(timeoutMs, HTTP_DEFAULTS.connectTimeoutMs),
      ...(policy && guard ? { lookup: guardedLookup(policy, guard.resolve ?? systemResolve) } : {}),
    },
  });

  /** One attempt: the request and its redirect hops under one deadline. */
  async function attempt(raw: string, req: HttpRequest, started: number): Promise<HttpResponse> {
    const method = req.method ?? "GET";
    const follow = maxRedirects > 0 && (method === "GET" || method === "HEAD");
    const deadlineMs = req.timeoutMs ?? timeoutMs;
    let headers: Record<string, string> = { "user-agent": userAgent, ...lowerKeys(req.headers ?? {}) };
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    let url = checkOutgoingUrl(raw, policy);
    for (let redirects = 0; ; redirects++) {
      try {
        const body = typeof req.body === "function" ? req.body() : req.body;
        const res = await request(url, {
          method,
          headers,
          body,
          dispatcher: agent,
          signal,
          headersTimeout: deadlineMs,
          bodyTimeout: deadlineMs,
        });
        const location = res.headers.location;
        if (follow && REDIRECTS.has(res.statusCode) && typeof location === "string") {
          await res.body.dump().catch(() => {});
          if (redirects >= maxRedirects) throw new HttpError("too_many_redirects", `Too many redirects (more than ${maxRedirects})`);
          const next = checkOutgoingUrl(new URL(location, url).toString(), policy);
          if (next.origin !== url.origin) headers = withoutKeys(headers, ORIGIN_BOUND_HEADERS);
          url = next;
          continue;
        }
        const read = await readLimited(res, req.maxBodyBytes ?? maxBodyBytes, req.oversized ?? "error");
        return {
          status: res.statusCode,
          headers: flattenHeaders(res.headers),
          ...read,
          url: url.toString(),
          redirects,
          attempts: 1,
          durationMs: Math.round(performance.now() - started),
        };
      } catch (e) {
        throw describe(e, url, deadline, deadlineMs, req.signal);
      }
    }
  }

  async function exchange(raw: string, req: HttpRequest): Promise<HttpResponse> {
    const policyOfRetry = req.retry ?? options.retry ?? NO_RETRY;
    const idempotent = req.idempotent ?? IDEMPOTENT_METHODS.has(req.method ?? "GET");
    const started = performance.now();
    for (let n = 1; ; n++) {
      let outcome: AttemptOutcome;
      let result: HttpResponse | HttpError;
      let problem: string;
      try {
        result = { ...(await attempt(raw, req, started)), attempts: n };
        outcome = {
          kind: "answer",
          status: result.status,
          ...(result.headers["retry-after"] ? { retryAfter: result.headers["retry-after"] } : {}),
        };
        problem = `HTTP ${result.status}`;
      } catch (e) {
        result = e instanceof HttpError ? e : new HttpError("network", String(e), { cause: e });
        result.attempts = n;
        result.durationMs = Math.round(performance.now() - started);
        outcome = outcomeOf(result);
        problem = result.message;
      }
      const delay = nextRetryDelay({ attempt: n, policy: policyOfRetry, idempotent, outcome, random: Math.random(), now: clock() });
      if (delay === null) {
        if (result instanceof HttpError) throw result;
        return result;
      }
      req.onRetry?.({ attempt: n + 1, delayMs: delay, problem });
      await sleep(delay, req.signal);
    }
  }

  return {
    request: (url, req = {}) => exchange(url, req),
    close: () => agent.close(),
  };
}

function outcomeOf(e: HttpError): AttemptOutcome {
  if (e.code === "network") return NOT_SENT_CODES.has(e.details.reason ?? "") ? { kind: "not_sent" } : { kind: "lost" };
  if (e.code === "timeout") return { kind: "lost" };
  return { kind: "permanent" };
}

function describe(e: unknown, url: URL, deadline: AbortSignal, timeoutMs: number, callerSignal?: AbortSignal): HttpError {
  const own = findCause(e, isHttpError);
  if (own) return own;
  if (callerSignal?.aborted) return new HttpError("aborted", "Request cancelled", { host: url.host, cause: e });
  const code = findCause(e, hasCode)?.code;
  if (deadline.aborted || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new HttpError("timeout", `Request to ${url.host} timed out after ${timeoutMs / 1000} s`, { host: url.host, cause: e });
  }
  const reason = code ?? (e instanceof Error ? e.message : String(e));
  return new HttpError("network", `Could not reach ${url.host}: ${reason}`, { host: url.host, reason, cause: e });
}
