// Which step errors are worth another attempt, and the reasons a running handler is aborted.
import { isAppError, type ErrorKind } from "@scribe/kit";

/** Throw from a step to fail it (and the run) at once: retrying would fail the same way. */
export class NonRetryableError extends Error {
  readonly retryable = false;
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts);
    this.name = "NonRetryableError";
  }
}

/** Why the runner aborted a handler (the AbortSignal's reason). */
export class StepAbort extends Error {
  constructor(
    readonly kind: "timeout" | "run_stopped" | "worker_stopping",
    message: string,
  ) {
    super(message);
    this.name = "StepAbort";
  }
}

/** AppError kinds that describe the request, not the moment: the same call fails the same way. */
const PERMANENT_APP_ERRORS = new Set<ErrorKind>([
  "not_found",
  "forbidden",
  "unauthorized",
  "conflict",
  "bad_request",
  "invalid",
  "too_large",
]);

/**
 * Default rules (behaviour §5.5): explicit non-retryable errors, errors that say `retryable: false`
 * (e.g. MediaError for corrupt input), the kit's client-side AppErrors and zod validation errors
 * fail at once; everything else (timeouts, I/O, 5xx, unknown) is retried. A step may override.
 */
export function isRetryable(error: unknown, override?: ((e: unknown) => boolean | undefined) | null): boolean {
  const decided = override?.(error);
  if (decided !== undefined) return decided;
  if (error instanceof NonRetryableError) return false;
  if (typeof error === "object" && error !== null && "retryable" in error && typeof error.retryable === "boolean") return error.retryable;
  if (isAppError(error)) return !PERMANENT_APP_ERRORS.has(error.kind);
  if (error instanceof Error && error.name === "ZodError") return false;
  return true;
}

const MAX_ERROR_LENGTH = 4000;

/** The text stored with a failed attempt: `Name: message` (plain `Error` keeps just the message). */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? error.name && error.name !== "Error"
        ? `${error.name}: ${error.message}`
        : error.message
      : typeof error === "string"
        ? error
        : (JSON.stringify(error) ?? String(error));
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
