// The small set of typed errors every service throws; the gateway maps them once to HTTP statuses,
// the bus carries them across request/reply unchanged.
import type { ValidationError } from "@scribe/contracts";

export type ErrorKind =
  | "NotFound"
  | "Forbidden"
  | "Unauthorized"
  | "Conflict"
  | "Invalid"
  | "TooManyRequests"
  | "Unavailable"
  | "Internal";

const DEFAULT_STATUS: Record<ErrorKind, number> = {
  NotFound: 404,
  Forbidden: 403,
  Unauthorized: 401,
  Conflict: 409,
  Invalid: 422,
  TooManyRequests: 429,
  Unavailable: 503,
  Internal: 500,
};

/** `detail` is the wire body's detail: a message, or FastAPI-style validation errors. */
export class AppError extends Error {
  readonly status: number;
  /** For 429 and 503: when to try again (the gateway sends it as Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string | ValidationError[],
    opts: { status?: number; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "), {
      cause: opts.cause,
    });
    this.name = kind;
    this.status = opts.status ?? DEFAULT_STATUS[kind];
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
  toJSON(): SerializedError {
    return { kind: this.kind, status: this.status, detail: this.detail, ...(this.retryAfterSeconds !== undefined ? { retry_after_seconds: this.retryAfterSeconds } : {}) };
  }
}

export interface SerializedError {
  kind: ErrorKind;
  status: number;
  detail: string | ValidationError[];
  retry_after_seconds?: number;
}

export const NotFound = (detail: string) => new AppError("NotFound", detail);
export const Forbidden = (detail: string) => new AppError("Forbidden", detail);
export const Unauthorized = (detail = "Not authenticated") => new AppError("Unauthorized", detail);
/** A business-rule refusal; the wire contract often wants 400 for these (pass status). */
export const Conflict = (detail: string, status = 409) => new AppError("Conflict", detail, { status });
export const BadRequest = (detail: string) => new AppError("Conflict", detail, { status: 400 });
export const Invalid = (detail: string | ValidationError[]) => new AppError("Invalid", detail);
export const TooManyRequests = (detail: string) => new AppError("TooManyRequests", detail);
export const Unavailable = (detail: string, cause?: unknown) => new AppError("Unavailable", detail, { cause });

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
