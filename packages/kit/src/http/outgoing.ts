// Outgoing HTTP to user-given URLs (ICS feeds, webhook receivers): a deadline for the whole exchange,
// bounded redirects, a maximum response size, and the SSRF guard of the decisions (Security): no
// loopback, private or link-local address unless allowed — checked for every address a host name
// resolves to and on every redirect hop, at connection time, so DNS cannot swap in another address
// between the check and the connection.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, request, type Dispatcher } from "undici";
import { nonPublicAddressKind } from "./addresses";

export type OutgoingErrorCode =
  | "invalid_url"
  | "blocked_address"
  | "timeout"
  | "too_large"
  | "too_many_redirects"
  | "network";

/** A failed exchange; `message` is written for the person who configured the URL. */
export class OutgoingHttpError extends Error {
  constructor(
    readonly code: OutgoingErrorCode,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "OutgoingHttpError";
  }
}

/**
 * Decides whether a resolved address may be reached: null to allow, else the reason. The default
 * refuses non-public addresses unless `allowPrivate`; tests pass their own to exercise the guard
 * with servers that only exist on loopback.
 */
export type AddressPolicy = (address: string) => string | null;

export interface OutgoingHttpOptions {
  /** ALLOW_PRIVATE_URLS: let user-given URLs reach loopback, private and link-local addresses. */
  allowPrivate?: boolean;
  /** Deadline of one whole exchange (every redirect hop and the body included). */
  timeoutMs?: number;
  /** Redirects followed for GET/HEAD (other methods get the 3xx answer as it is). */
  maxRedirects?: number;
  /** Largest response body accepted. */
  maxBodyBytes?: number;
  userAgent?: string;
  addressPolicy?: AddressPolicy;
}

export interface OutgoingRequest {
  method?: "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

export interface OutgoingResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
  redirects: number;
}

export interface OutgoingHttp {
  request(url: string, req?: OutgoingRequest): Promise<OutgoingResponse>;
  close(): Promise<void>;
}

export const OUTGOING_DEFAULTS = {
  timeoutMs: 30_000,
  maxRedirects: 5,
  maxBodyBytes: 10 * 1024 * 1024,
  userAgent: "Scribe/1.0",
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Credentials meant for one origin are not carried to another one by a redirect. */
const ORIGIN_BOUND_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** The default policy: public addresses only, unless `allowPrivate`. */
export function publicAddressPolicy(allowPrivate: boolean): AddressPolicy {
  return (address) => {
    if (allowPrivate) return null;
    const kind = nonPublicAddressKind(address);
    return kind === null ? null : `${kind} address`;
  };
}

function blocked(host: string, address: string, reason: string): OutgoingHttpError {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutgoingHttpError(
    "blocked_address",
    `Refused to connect to ${shown}: ${reason}; loopback, private and link-local addresses are not allowed (ALLOW_PRIVATE_URLS)`,
  );
}

/**
 * Parse a user-given URL and refuse what can be refused without resolving it: schemes other than
 * http(s) and literal addresses the policy forbids. Host names are checked when resolved.
 */
export function checkOutgoingUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutgoingHttpError("invalid_url", `Not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutgoingHttpError("invalid_url", `Unsupported URL scheme ${url.protocol.replace(/:$/, "")} (http or https only)`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    const reason = policy(host);
    if (reason) throw blocked(host, host, reason);
  }
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that resolves every address and refuses the host if any is forbidden. */
function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    const opts: LookupAllOptions = { all: true, family, hints: options.hints ?? 0 };
    dnsLookup(hostname, opts, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const reason = policy(a.address);
        // Every address is checked: a name that resolves to one public and one private address
        // could otherwise be steered to the private one by the connection's address selection.
        if (reason) return callback(blocked(hostname, a.address, reason) as unknown as NodeJS.ErrnoException, []);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

function findCause<T>(e: unknown, match: (x: unknown) => x is T): T | null {
  for (let cur: unknown = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (match(cur)) return cur;
  }
  return null;
}
const isOutgoingError = (x: unknown): x is OutgoingHttpError => x instanceof OutgoingHttpError;

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

async function readLimited(res: Dispatcher.ResponseData, limit: number): Promise<Buffer> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    discard(res);
    throw new OutgoingHttpError("too_large", `Response is larger than ${limit} bytes (${declared} announced)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > limit) {
      discard(res);
      throw new OutgoingHttpError("too_large", `Response is larger than ${limit} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function createOutgoingHttp(options: OutgoingHttpOptions = {}): OutgoingHttp {
  const timeoutMs = options.timeoutMs ?? OUTGOING_DEFAULTS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? OUTGOING_DEFAULTS.maxRedirects;
  const maxBodyBytes = options.maxBodyBytes ?? OUTGOING_DEFAULTS.maxBodyBytes;
  const userAgent = options.userAgent ?? OUTGOING_DEFAULTS.userAgent;
  const policy = options.addressPolicy ?? publicAddressPolicy(options.allowPrivate ?? false);
  // Every connection of this agent resolves through the guard, so no request can skip it.
  const agent = new Agent({ connect: { lookup: guardedLookup(policy) } });

  async function exchange(raw: string, req: OutgoingRequest): Promise<OutgoingResponse> {
    const method = req.method ?? "GET";
    const follow = method === "GET" || method === "HEAD";
    let headers: Record<string, string> = { "user-agent": userAgent, ...lowerKeys(req.headers ?? {}) };
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([deadline, req.signal]) : deadline;
    let url = checkOutgoingUrl(raw, policy);
    for (let redirects = 0; ; redirects++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, { method, headers, body: req.body, dispatcher: agent, signal });
      } catch (e) {
        throw describe(e, url, deadline, timeoutMs);
      }
      const location = res.headers.location;
      if (follow && REDIRECTS.has(res.statusCode) && typeof location === "string") {
        await res.body.dump().catch(() => {});
        if (redirects >= maxRedirects) {
          throw new OutgoingHttpError("too_many_redirects", `Too many redirects (more than ${maxRedirects})`);
        }
        const next = checkOutgoingUrl(new URL(location, url).toString(), policy);
        if (next.origin !== url.origin) headers = withoutKeys(headers, ORIGIN_BOUND_HEADERS);
        url = next;
        continue;
      }
      let body: Buffer;
      try {
        body = await readLimited(res, maxBodyBytes);
      } catch (e) {
        throw describe(e, url, deadline, timeoutMs);
      }
      return { status: res.statusCode, headers: flattenHeaders(res.headers), body, url: url.toString(), redirects };
    }
  }

  return {
    request: (url, req = {}) => exchange(url, req),
    close: () => agent.close(),
  };
}

function describe(e: unknown, url: URL, deadline: AbortSignal, timeoutMs: number): OutgoingHttpError {
  const own = findCause(e, isOutgoingError);
  if (own) return own;
  if (deadline.aborted) {
    return new OutgoingHttpError("timeout", `Request to ${url.host} timed out after ${timeoutMs / 1000} s`, { cause: e });
  }
  const code = findCause(e, (x): x is { code: string } => typeof (x as { code?: unknown })?.code === "string")?.code;
  const detail = code ?? (e instanceof Error ? e.message : String(e));
  return new OutgoingHttpError("network", `Could not reach ${url.host}: ${detail}`, { cause: e });
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
function withoutKeys(h: Record<string, string>, keys: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([k]) => !keys.includes(k)));
}
