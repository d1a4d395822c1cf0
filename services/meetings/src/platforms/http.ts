// Calls to a video platform's REST API: bearer key, a timeout per call, bounded retries with
// backoff, answers parsed with zod, and errors that say which platform call failed and how.
import { Unavailable, type Logger } from "@scribe/kit";
import { errors, request } from "undici";
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

/** Errors raised before the request could reach the platform. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

export class PlatformHttp {
  constructor(private readonly opts: PlatformHttpOptions) {}

  get configured(): boolean {
    return this.opts.apiKey !== "";
  }

  async call<S extends z.ZodType>(op: string, call: CallOptions<S>): Promise<z.infer<S>> {
    const { platform, baseUrl, apiKey, apiKeyVariable, timeoutMs, retries, log } = this.opts;
    if (!apiKey) throw Unavailable(`${platform} is not configured: set ${apiKeyVariable}`);
    const url = new URL(`${baseUrl.replace(/\/+$/, "")}${call.path}`);
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
    for (let attempt = 0; ; attempt++) {
      const retry = async (reason: string): Promise<boolean> => {
        if (attempt >= retries) return false;
        log.warn({ platform, op, attempt: attempt + 1, reason }, "platform call failed; retrying");
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
        return true;
      };
      let status: number;
      let text: string;
      try {
        const res = await request(url, {
          method: call.method,
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", accept: "application/json" },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (e) {
        const code = (e as { code?: string }).code ?? (e instanceof errors.UndiciError ? e.name : "");
        const reason = e instanceof Error && e.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : `${code || (e as Error).message}`;
        if ((call.idempotent || NOT_SENT.has(code)) && (await retry(reason))) continue;
        throw new PlatformApiError(platform, op, null, reason);
      }
      if ((status >= 500 || status === 429) && call.idempotent && (await retry(`status ${status}`))) continue;
      if (status >= 400) throw new PlatformApiError(platform, op, status, text);
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        throw new PlatformApiError(platform, op, status, `answer is not JSON: ${text.slice(0, 100)}`);
      }
      const parsed = call.schema.safeParse(json);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
        throw new PlatformApiError(platform, op, status, `unexpected answer: ${issues}`);
      }
      return parsed.data as z.infer<S>;
    }
  }
}

/** A platform failure as the caller's error: 503 naming the platform call (never a bare 500). */
export function platformUnavailable(e: unknown): Error {
  if (e instanceof PlatformApiError) return Unavailable(e.message, e);
  return e as Error;
}
