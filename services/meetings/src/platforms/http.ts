// Calls to a video platform's REST API through kit's HTTP client: bearer key, a timeout per call,
// the kit's retry rule, answers parsed with zod, and errors that say which platform call failed and how.
import { createHttpClient, HttpError, Unavailable, type Logger } from "@scribe/kit";
import type { z } from "zod";

export class PlatformApiError extends Error {
  constructor(
    readonly platform: string,
    readonly op: string,
    /** HTTP status, or null when no answer came (network error, timeout). */
    readonly status: number | null,
    readonly body: string,
  ) {
    super(
      status === null
        ? `${platform} API error: ${op} failed: ${body}`
        : `${platform} API error: ${op} failed with status ${status}: ${body.slice(0, 300)}`,
    );
    this.name = "PlatformApiError";
  }
}

export interface PlatformHttpOptions {
  /** Name used in errors and logs ("Daily", "Whereby"). */
  platform: string;
  baseUrl: string;
  apiKey: string;
  /** The variable to set when the key is missing (named in the error). */
  apiKeyVariable: string;
  timeoutMs: number;
  retries: number;
  log: Logger;
}

export interface CallOptions<S extends z.ZodType> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  schema: S;
  /**
   * Safe to send twice (reads, token minting): retried on 5xx, 429, timeouts and network errors.
   * Otherwise (creating a room) only a connection that was never established is retried, so a
   * request the platform may have carried out is not repeated.
   */
  idempotent: boolean;
}

// Operator-configured endpoints: no SSRF guard; deadlines and retries per call.
const http = createHttpClient({ guard: false });

export class PlatformHttp {
  constructor(private readonly opts: PlatformHttpOptions) {}

  get configured(): boolean {
    return this.opts.apiKey !== "";
  }

  async call<S extends z.ZodType>(op: string, call: CallOptions<S>): Promise<z.infer<S>> {
    const { platform, baseUrl, apiKey, apiKeyVariable, timeoutMs, retries, log } = this.opts;
    if (!apiKey) throw Unavailable(`${platform} is not configured: set ${apiKeyVariable}`, undefined, null);
    const url = new URL(`${baseUrl.replace(/\/+$/, "")}${call.path}`);
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
    let res;
    try {
      res = await http.request(url.toString(), {
        method: call.method,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json" },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        idempotent: call.idempotent,
        timeoutMs,
        retry: { attempts: retries + 1, backoffMs: 200, maxBackoffMs: 5_000 },
        onRetry: ({ attempt, problem }) => log.warn({ platform, op, attempt, reason: problem }, "platform call failed; retrying"),
      });
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      const reason = e.code === "timeout" ? `timed out after ${timeoutMs} ms` : (e.details.reason ?? e.message);
      throw new PlatformApiError(platform, op, null, reason);
    }
    const text = res.body.toString("utf8");
    if (res.status >= 400) throw new PlatformApiError(platform, op, res.status, text);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new PlatformApiError(platform, op, res.status, `answer is not JSON: ${text.slice(0, 100)}`);
    }
    const parsed = call.schema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
      throw new PlatformApiError(platform, op, res.status, `unexpected answer: ${issues}`);
    }
    return parsed.data as z.infer<S>;
  }
}

/** A platform failure as the caller's error: 503 naming the platform call (never a bare 500). */
export function platformUnavailable(e: unknown): Error {
  if (e instanceof PlatformApiError) return Unavailable(e.message, e);
  return e as Error;
}
