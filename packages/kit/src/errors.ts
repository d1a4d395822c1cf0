// The small set of typed errors every service throws. An error says what kind of refusal it is, never
// an HTTP status: the gateway alone maps kinds to statuses (services/gateway/src/http/errors.ts), and
// the bus carries the kind across request/reply unchanged.
import type { ValidationError } from "@scribe/contracts";

export const ERROR_KINDS = [
  "not_found",
  "forbidden",
  "unauthorized",
  /** The resource's state forbids the request (a duplicate, a run not in a retryable state). */
  "conflict",
  /** A business rule refuses the request as asked (the contract answers these 400). */
  "bad_request",
  /** The input itself is malformed: validation failures naming the field. */
  "invalid",
  "too_large",
  "rate_limited",
  "unavailable",
  /** A platform or provider we called refused or failed. */
  "upstream",
  /** Another service did not answer in time. */
  "timeout",
  "internal",
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** `detail` is the wire body's detail: a message, or FastAPI-style validation errors. */
export class AppError extends Error {
  /** For rate_limited and unavailable: when to try again (the gateway sends it as Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string | ValidationError[],
    opts: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "), {
      cause: opts.cause,
    });
    this.name = kind;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  toJSON(): SerializedError {
    return {
      kind: this.kind,
      detail: this.detail,
      ...(this.retryAfterSeconds !== undefined ? { retry_after_seconds: this.retryAfterSeconds } : {}),
    };
  }
}

export interface SerializedError {
  kind: ErrorKind;
  detail: string | ValidationError[];
  retry_after_seconds?: number;
}

export const NotFound = (detail: string) => new AppError("not_found", detail);
export const Forbidden = (detail: string) => new AppError("forbidden", detail);
export const Unauthorized = (detail = "Not authenticated") => new AppError("unauthorized", detail);
export const Conflict = (detail: string) => new AppError("conflict", detail);
export const BadRequest = (detail: string) => new AppError("bad_request", detail);
export const Invalid = (detail: string | ValidationError[]) => new AppError("invalid", detail);
export const TooLarge = (detail: string) => new AppError("too_large", detail);
export const TooManyRequests = (detail: string) => new AppError("rate_limited", detail);
/** What a client is told to wait (Retry-After) when the service, its database or a platform is briefly out of reach. */
export const RETRY_AFTER_SECONDS = 5;
/**
 * Something the request needs is out of reach for now (a service, the database, a platform): 503
 * with a Retry-After, so clients wait rather than hammer or give up. `retryAfterSeconds: null` for
 * what waiting will not mend (a platform that is not configured).
 */
export const Unavailable = (detail: string, cause?: unknown, retryAfterSeconds: number | null = RETRY_AFTER_SECONDS) =>
  new AppError("unavailable", detail, { cause, ...(retryAfterSeconds === null ? {} : { retryAfterSeconds }) });
/** A platform or provider we depend on refused or failed (the detail says which and why). */
export const UpstreamFailed = (detail: string, cause?: unknown) => new AppError("upstream", detail, { cause });

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Turn a zod error into FastAPI-shaped validation errors under `prefix` (e.g. ["body"]). */
export function validationErrors(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string; code: string; input?: unknown }>,
  prefix: (string | number)[] = [],
): ValidationError[] {
  return issues.map((i) => ({
    loc: [...prefix, ...i.path.map((p) => (typeof p === "number" ? p : String(p)))],
    msg: i.message,
    type: i.code,
  }));
}

/**
 * PostgreSQL refusing a value (SQLSTATE class 22: NUL or invalid UTF-8 in text, a number or date
 * out of range, text that is not a UUID…) is bad input that got past validation, not a server
 * fault: a 422. Other errors are returned as they are.
 */
export function refusedValue(e: unknown): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("22")) return e;
  return Invalid([{ loc: ["body"], msg: `Value not accepted: ${(e as Error).message}`, type: "value_error" }]);
}

/** postgres.js's own codes for a connection that could not be made or was lost. */
const LOST_CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/**
 * The database being out of reach (refused, cut, restarting, out of connections) is an outage the
 * client should wait out, not a server fault: an `unavailable` AppError with a Retry-After. Class
 * 08 is a lost connection, 53300 too many connections, 57P01–57P03 a server shutting down,
 * terminating the session (pg_terminate_backend) or not yet accepting them.
 */
export function isDatabaseUnreachable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return LOST_CONNECTION_CODES.has(code) || code.startsWith("08") || code === "53300" || /^57P0[123]$/.test(code);
}

/**
 * The refusal a failure stands for, when it is a known one: a value PostgreSQL refused (422) or a
 * database out of reach (503 with Retry-After). Other errors are returned as they are.
 */
export function knownFailure(e: unknown): unknown {
  if (isDatabaseUnreachable(e)) return Unavailable("The service cannot reach its database; try again shortly", e);
  return refusedValue(e);
}
