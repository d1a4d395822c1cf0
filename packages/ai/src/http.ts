// Outgoing HTTP for the model backends, through kit's client (no SSRF guard: the endpoints are the
// operator's): a deadline per attempt, the kit's retry rule, and one error vocabulary: a backend
// that is down or overloaded is `Unavailable` (retryable), an answer we cannot use or a refused
// request is `Invalid` (not retryable).
import { AppError, createHttpClient, HttpError, RETRYABLE_STATUS, Unavailable, type Logger, type RetryPolicy } from "@scribe/kit";
import type { FormData } from "undici";
import type { z } from "zod";

export type { RetryPolicy };

export interface HttpCall {
  method?: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  /** A factory, because a multipart body is consumed by each attempt. */
  body?: () => string | FormData;
  /** Deadline of one attempt, ms. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Name of the backend, for errors and logs ("transcription API"). */
  service: string;
  signal?: AbortSignal;
  logger?: Logger;
}

// One keep-alive pool for every backend; answers (transcripts, completions) stay well below 64 MiB.
const http = createHttpClient({ guard: false, maxRedirects: 5, maxBodyBytes: 64 * 1024 * 1024 });

/** Perform `call` and parse its JSON answer with `schema`. */
export async function requestJson<S extends z.ZodType>(call: HttpCall, schema: S): Promise<z.infer<S>> {
  const text = await requestText(call);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AppError("invalid", `${call.service} answered with something other than JSON: ${preview(text)}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new AppError(
      "invalid",
      `${call.service} answered in an unexpected shape: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

/**
 * Perform `call` with retries; resolves the body of a 2xx answer. Model calls are repeatable (a
 * repeated transcription or completion changes nothing), so they count as idempotent.
 */
export async function requestText(call: HttpCall): Promise<string> {
  let res;
  try {
    res = await http.request(call.url, {
      method: call.method ?? "POST",
      headers: call.headers ?? {},
      ...(call.body ? { body: call.body } : {}),
      idempotent: true,
      timeoutMs: call.timeoutMs,
      retry: call.retry,
      ...(call.signal ? { signal: call.signal } : {}),
      onRetry: ({ attempt, delayMs, problem }) =>
        call.logger?.warn({ service: call.service, attempt, delayMs, problem }, "retrying model backend"),
    });
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    if (e.code === "aborted") throw new AppError("unavailable", `${call.service} call cancelled`, { cause: e });
    const why = e.code === "timeout" ? `no answer within ${call.timeoutMs} ms` : describeNetworkError(e);
    throw Unavailable(`${call.service} unavailable after ${e.attempts} attempts: ${call.service}: ${why}`, e);
  }
  const body = res.body.toString("utf8");
  if (res.status >= 200 && res.status < 300) return body;
  const problem = `${call.service} answered HTTP ${res.status}: ${preview(body)}`;
  if (RETRYABLE_STATUS.has(res.status)) throw Unavailable(`${call.service} unavailable after ${res.attempts} attempts: ${problem}`);
  throw new AppError("invalid", problem);
}

function describeNetworkError(e: HttpError): string {
  return e.details.reason ?? e.message;
}

function preview(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t || "(empty)";
}

export function bearer(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** `base` + `path` without doubled or missing slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
