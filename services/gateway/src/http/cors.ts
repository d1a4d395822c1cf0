// CORS on every answer. Preflights (OPTIONS) are hono's cors middleware's; other requests get the
// same headers it would set (allowed origin, credentials, exposed headers, Vary: Origin) once the
// route answered, on the answer itself (answer-headers.ts: hono's sets them before the route runs,
// which makes hono copy every answer).
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { setAnswerHeader } from "./answer-headers";

export interface CorsOptions {
  /** The allowed origins, or the origin to answer for a request's Origin (null: not allowed). */
  origin: string[] | ((origin: string) => string | null);
  credentials: boolean;
  allowMethods: string[];
  exposeHeaders: string[];
}

export function corsHeaders(options: CorsOptions): MiddlewareHandler {
  const preflight = cors(options);
  const allowedOrigin =
    typeof options.origin === "function"
      ? options.origin
      : (origin: string) => ((options.origin as string[]).includes(origin) ? origin : null);
  const exposed = options.exposeHeaders.join(",");
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    await next();
    const origin = allowedOrigin(c.req.header("origin") || "");
    if (origin) setAnswerHeader(c, "Access-Control-Allow-Origin", origin);
    if (options.credentials) setAnswerHeader(c, "Access-Control-Allow-Credentials", "true");
    if (exposed) setAnswerHeader(c, "Access-Control-Expose-Headers", exposed);
    setAnswerHeader(c, "Vary", "Origin", { append: true });
  };
}
