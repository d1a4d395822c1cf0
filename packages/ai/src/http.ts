// Outgoing HTTP for the model backends (undici): a deadline per attempt, bounded retries with
// backoff, and one error vocabulary: a backend that is down or overloaded is `Unavailable`
// (retryable), an answer we cannot use or a refused request is `Invalid` (not retryable).
import { Agent, fetch, type FormData, type Dispatcher } from "undici";
import type { z } from "zod";
import { AppError, Unavailable } from "@scribe/kit";
import type { Logger } from "@scribe/kit";

export interface RetryPolicy {
  /** Attempts in all (1 = no retry). */
  attempts: number;
  /** First backoff in ms; doubled per attempt, plus up to 10% jitter. */
  backoffMs: number;
  maxBackoffMs: number;
}

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

/** Statuses worth another attempt: the server is busy or broken, not our request. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

// One keep-alive pool for every backend; the per-attempt deadline is the AbortSignal, and these
// idle limits only guard against a server that stalls mid-answer.
const agent: Dispatcher = new Agent({ connectTimeout: 10_000, keepAliveTimeout: 10_000 });

/** Backoff before attempt `attempt` (1-based retry count); `random` in [0,1) makes the jitter. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: number): number {
  const base = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (attempt - 1));
  return Math.round(base * (1 + 0.1 * random));
}

/** Perform `call` and parse its JSON answer with `schema`. */
export async function requestJson<S extends z.ZodType>(call: HttpCall, schema: S): Promise<z.infer<S>> {
  const text = await requestText(call);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new AppError("Invalid", `${call.service} answered with something other than JSON: ${preview(text)}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new AppError("Invalid", `${call.service} answered in an unexpected shape: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

/** Perform `call` with retries; resolves the body of a 2xx answer. */
export async function requestText(call: HttpCall): Promise<string> {
  let lastProblem = "";
  for (let attempt = 1; attempt <= call.retry.attempts; attempt++) {
    if (attempt > 1) {
      const delay = backoffDelay(attempt - 1, call.retry, Math.random());
      call.logger?.warn({ service: call.service, attempt, delayMs: delay, problem: lastProblem }, "retrying model backend");
      await abortableDelay(delay, call.signal);
    }
    const outcome = await attemptOnce(call);
    if (outcome.ok) return outcome.body;
    if (!outcome.retryable) throw outcome.error;
    lastProblem = outcome.error.message;
  }
  throw Unavailable(`${call.service} unavailable after ${call.retry.attempts} attempts: ${lastProblem}`);
}

type Outcome = { ok: true; body: string } | { ok: false; retryable: boolean; error: AppError };

async function attemptOnce(call: HttpCall): Promise<Outcome> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline;
  let status: number;
  let body: string;
  try {
    const res = await fetch(call.url, {
      method: call.method ?? "POST",
      headers: call.headers ?? {},
      body: call.body?.() ?? null,
      redirect: "follow",
      signal,
      dispatcher: agent,
    });
    status = res.status;
    body = await res.text();
  } catch (e) {
    if (call.signal?.aborted) {
      return { ok: false, retryable: false, error: new AppError("Unavailable", `${call.service} call cancelled`, { cause: e }) };
    }
    const why = deadline.aborted ? `no answer within ${call.timeoutMs} ms` : describeNetworkError(e);
    return { ok: false, retryable: true, error: Unavailable(`${call.service}: ${why}`, e) };
  }
  if (status >= 200 && status < 300) return { ok: true, body };
  const problem = `${call.service} answered HTTP ${status}: ${preview(body)}`;
  if (RETRYABLE_STATUS.has(status)) return { ok: false, retryable: true, error: Unavailable(problem) };
  return { ok: false, retryable: false, error: new AppError("Invalid", problem) };
}

function describeNetworkError(e: unknown): string {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}

function preview(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > 300 ? `${t.slice(0, 300)}…` : t || "(empty)";
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AppError("Unavailable", "call cancelled"));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(new AppError("Unavailable", "call cancelled"));
      },
      { once: true },
    );
  });
}

export function bearer(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** `base` + `path` without doubled or missing slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
