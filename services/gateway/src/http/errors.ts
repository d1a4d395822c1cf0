// Error bodies in the contract's shape: {"detail": "..."} with the status, validation failures as 422
// with FastAPI-style {"detail": [{loc, msg, type}]}, never a 500 for bad input.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { isAppError, knownFailure, validationErrors, type ErrorKind, type Logger } from "@scribe/kit";
import type { ZodError } from "zod";

const LOCATION: Record<string, string> = { json: "body", form: "body", query: "query", param: "path", header: "header", cookie: "cookie" };

/** zod-openapi default hook: a failed validation answers 422 naming the field. */
export function validationHook(result: { target: string } & ({ success: true } | { success: false; error: ZodError }), c: Context) {
  if (result.success) return;
  return c.json({ detail: validationErrors(result.error.issues, [LOCATION[result.target] ?? result.target]) }, 422);
}

/** The one place a kind of error becomes an HTTP status; services and domain code never name one. */
export const HTTP_STATUS: Record<ErrorKind, ContentfulStatusCode> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  invalid: 422,
  rate_limited: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
  timeout: 504,
};

export function errorResponse(thrown: Error, c: Context, log: Logger): Response {
  // The gateway's own SQL (users, API keys) refuses bad values and loses its database like any service.
  const err = knownFailure(thrown) as Error;
  if (isAppError(err)) {
    if (err.retryAfterSeconds !== undefined) c.header("retry-after", String(err.retryAfterSeconds));
    return c.json({ detail: err.detail }, HTTP_STATUS[err.kind]);
  }
  if (err instanceof HTTPException) {
    if (err.status === 400 && /Malformed (JSON|FormData)/.test(err.message)) {
      return c.json({ detail: [{ loc: ["body"], msg: err.message, type: "json_invalid" }] }, 422);
    }
    if (err.status === 413) return c.json({ detail: "Request body too large" }, 413);
    return c.json({ detail: err.message || "Error" }, err.status);
  }
  if ((err as NodeJS.ErrnoException).code === "ECONNRESET") {
    // The client went away (or was cut off by the request time limit) while its body was read.
    log.info({ err: err.message }, "request body aborted by the client");
    return c.json({ detail: "Request aborted" }, 400);
  }
  log.error({ err }, "unhandled error");
  return c.text("Internal Server Error", 500);
}
