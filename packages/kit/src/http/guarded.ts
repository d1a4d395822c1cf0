// Outgoing HTTP to user-given URLs (webhooks; ICS feeds can reuse it): an undici dispatcher that
// checks the address every connection actually goes to, so neither a literal nor a DNS name (nor a
// DNS answer that changes between check and use) reaches loopback, private or link-local networks
// unless the operator allows it (ALLOW_PRIVATE_URLS). Redirects are never followed, every call has
// a deadline, and only a bounded part of the answer is read.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, request, type Dispatcher } from "undici";

/** Address ranges a user-given URL may not reach (by name, for error messages). */
const RANGES: { name: string; v4?: [string, number][]; v6?: [string, number][] }[] = [
  { name: "loopback", v4: [["127.0.0.0", 8]], v6: [["::1", 128]] },
  { name: "unspecified", v4: [["0.0.0.0", 8]], v6: [["::", 128]] },
  { name: "private", v4: [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16]], v6: [["fc00::", 7]] },
  { name: "link-local", v4: [["169.254.0.0", 16]], v6: [["fe80::", 10]] },
  // Carrier-grade NAT and the IETF/benchmarking blocks are internal networks in practice.
  { name: "shared address space", v4: [["100.64.0.0", 10]] },
  { name: "reserved", v4: [["192.0.0.0", 24], ["198.18.0.0", 15], ["240.0.0.0", 4]] },
  { name: "multicast", v4: [["224.0.0.0", 4]], v6: [["ff00::", 8]] },
];
const LISTS = RANGES.map((r) => {
  const list = new BlockList();
  for (const [net, prefix] of r.v4 ?? []) list.addSubnet(net, prefix, "ipv4");
  for (const [net, prefix] of r.v6 ?? []) list.addSubnet(net, prefix, "ipv6");
  return { name: r.name, list };
});

/** IPv4 carried inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96): checked as the IPv4 it is. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The blocked range an IP address falls in ("loopback", "private", "link-local", …), or null if public. */
export function blockedRange(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = isIP(bare) === 6 ? embeddedIpv4(bare.toLowerCase()) : null;
  const address = v4 ?? bare;
  const family = isIP(address);
  if (family === 0) return null;
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const { name, list } of LISTS) if (list.check(address, type)) return name;
  return null;
}

/** A connection was refused because of where it would have gone. */
export class BlockedAddressError extends Error {
  readonly code = "ERR_SCRIBE_BLOCKED_ADDRESS";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      host === address
        ? `${address} is a ${range} address (not allowed unless ALLOW_PRIVATE_URLS is set)`
        : `${host} resolves to ${address}, a ${range} address (not allowed unless ALLOW_PRIVATE_URLS is set)`,
    );
    this.name = "BlockedAddressError";
  }
}

export type Resolver = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface GuardPolicy {
  /** ALLOW_PRIVATE_URLS: loopback/private/link-local targets are allowed (tests, local demos). */
  allowPrivate: boolean;
  /** DNS resolution (default: the system resolver); tests inject names that resolve anywhere. */
  resolve?: Resolver;
  /** Connection timeout (the whole request has its own deadline too). */
  connectTimeoutMs?: number;
}

const systemResolve: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/** A `lookup` for net/tls.connect that refuses names resolving to a blocked address (any of them). */
function guardedLookup(policy: GuardPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      if (!policy.allowPrivate) {
        for (const a of addresses) {
          const range = blockedRange(a.address);
          if (range) return callback(new BlockedAddressError(hostname, a.address, range), "", 0);
        }
      }
      // Node asks for every address when it races them (autoSelectFamily), else for the first.
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/**
 * An undici dispatcher whose every new connection is checked: IP literals before connecting, names
 * at resolution (the address connected to is the one checked, so DNS rebinding cannot slip by).
 */
export function guardedDispatcher(policy: GuardPolicy): Dispatcher {
  const base = buildConnector({ timeout: policy.connectTimeoutMs ?? 10_000, lookup: guardedLookup(policy) });
  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, "");
    if (!policy.allowPrivate && isIP(host) !== 0) {
      const range = blockedRange(host);
      if (range) return callback(new BlockedAddressError(host, host, range), null);
    }
    base(opts, callback);
  };
  return new Agent({ connect, keepAliveTimeout: 4_000 });
}

export type OutgoingErrorKind = "invalid_url" | "blocked" | "timeout" | "connect" | "other";

/** A request that got no HTTP answer, and why. */
export class OutgoingRequestError extends Error {
  constructor(
    readonly kind: OutgoingErrorKind,
    message: string,
    readonly durationMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OutgoingRequestError";
  }
}

export interface GuardedRequest {
  url: string;
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Deadline of the whole exchange: connecting, sending, and reading the answer. */
  timeoutMs: number;
  /** Answer bytes kept (the rest is discarded unread); default 64 KiB. */
  maxBodyBytes?: number;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The answer as text (UTF-8), at most maxBodyBytes of it. */
  body: string;
  truncated: boolean;
  durationMs: number;
}

const CONNECT_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT", "ERR_TLS_CERT_ALTNAME_INVALID", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN"]);

function findCause(e: unknown, pred: (x: Error & { code?: string }) => boolean): (Error & { code?: string }) | null {
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    if (pred(x as Error & { code?: string })) return x as Error & { code?: string };
  }
  return null;
}

/** Classify what went wrong with a request that got no answer. */
export function classifyOutgoingError(e: unknown, durationMs: number, timedOut: boolean): OutgoingRequestError {
  if (e instanceof OutgoingRequestError) return e;
  const blocked = findCause(e, (x) => x instanceof BlockedAddressError);
  if (blocked) return new OutgoingRequestError("blocked", blocked.message, durationMs, { cause: e });
  const timeout = findCause(e, (x) => x.name === "TimeoutError" || x.code === "UND_ERR_HEADERS_TIMEOUT" || x.code === "UND_ERR_BODY_TIMEOUT");
  if (timedOut || timeout) return new OutgoingRequestError("timeout", "request timed out", durationMs, { cause: e });
  const connect = findCause(e, (x) => x.code !== undefined && CONNECT_CODES.has(x.code));
  if (connect) return new OutgoingRequestError("connect", `${connect.code}: ${connect.message}`, durationMs, { cause: e });
  const msg = e instanceof Error ? e.message : String(e);
  return new OutgoingRequestError("other", msg, durationMs, { cause: e });
}

/** Read at most `max` bytes of a body, then drop the connection's remainder. */
async function readBounded(body: Dispatcher.ResponseData["body"], max: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > max) {
      chunks.push(buf.subarray(0, max - size));
      truncated = true;
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

/**
 * One HTTP request through a guarded dispatcher: no redirects followed (a 3xx is just an answer),
 * the whole exchange bounded by `timeoutMs`. Resolves with any HTTP answer; rejects with an
 * OutgoingRequestError when there was none (blocked, timeout, connection failure).
 */
export async function guardedRequest(dispatcher: Dispatcher, req: GuardedRequest): Promise<GuardedResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw new OutgoingRequestError("invalid_url", `invalid URL: ${req.url}`, 0);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutgoingRequestError("invalid_url", `unsupported URL scheme ${url.protocol}`, 0);
  }
  const signal = AbortSignal.timeout(req.timeoutMs);
  try {
    const res = await request(url, {
      method: req.method ?? "GET",
      headers: req.headers,
      body: req.body,
      dispatcher,
      signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const { text, truncated } = await readBounded(res.body, req.maxBodyBytes ?? 64 * 1024);
    return { status: res.statusCode, headers: res.headers, body: text, truncated, durationMs: elapsed() };
  } catch (e) {
    throw classifyOutgoingError(e, elapsed(), signal.aborted);
  }
}
