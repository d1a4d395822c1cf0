// Sending webhooks: one attempt of a transcript.completed delivery (to the room's current URL,
// signed with its current secret), and the synchronous test event. Every call goes through the
// SSRF-guarded client with a deadline; retries are the dispatcher's schedule, not the client's.
import { randomUUID } from "node:crypto";
import { WebhookPayloadBody, type WebhookTestResult } from "@scribe/contracts";
import { HttpError, type HttpClient, type HttpResponse } from "@scribe/kit";
import type { RoomCopy } from "../domain/notifications";
import { httpVerdict } from "../domain/retry";
import { completedBody, testBody, testFailureMessage, webhookHeaders } from "../domain/webhook";
import { notifierMetrics } from "../metrics";
import type { DeliveryRow } from "../store";
import { excerpt, type AttemptResult } from "./types";

/** Payload event ids: a UUID4 as 32 lowercase hex characters (reference). */
export const newEventId = (): string => randomUUID().replace(/-/g, "");

export interface WebhookSettings {
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_TEST_TIMEOUT_MS: number;
}

/** The room's current webhook secret (kept by the rooms service only, never in events). */
export type WebhookSecretOf = (roomId: string) => Promise<string | null>;

export class WebhookSender {
  constructor(
    private readonly http: HttpClient,
    private readonly settings: WebhookSettings,
    private readonly secretOf: WebhookSecretOf,
  ) {}

  /** One attempt of a transcript.completed delivery at `now`. */
  async attempt(d: DeliveryRow, room: RoomCopy | null, now: Date): Promise<AttemptResult> {
    const none = { statusCode: null, excerpt: null, durationMs: 0, eventId: null };
    if (!room || room.deleted) return { verdict: "cancel", error: "the room was deleted", ...none };
    if (!room.webhook_url) return { verdict: "cancel", error: "the room no longer has a webhook URL", ...none };
    const eventId = newEventId();
    const body = completedBody(WebhookPayloadBody.parse(d.payload), eventId, now);
    let secret: string | null;
    try {
      secret = await this.secretOf(room.id);
    } catch (e) {
      return { verdict: "retryable", error: `the room's webhook secret could not be read: ${(e as Error).message}`, ...none };
    }
    const headers = webhookHeaders({ event: "transcript.completed", retry: d.attempts, deliveryId: d.id, secret, body, now });
    try {
      const res = await this.post(room.webhook_url, headers, body, this.settings.WEBHOOK_TIMEOUT_MS, 4096);
      notifierMetrics.webhookDuration.observe(res.durationMs / 1000);
      const verdict = httpVerdict(res.status);
      return {
        verdict,
        statusCode: res.status,
        error: verdict === "delivered" ? null : `HTTP ${res.status}`,
        excerpt: excerpt(res.body.toString("utf8")),
        durationMs: res.durationMs,
        eventId,
      };
    } catch (e) {
      const err = e instanceof HttpError ? e : new HttpError("network", String(e), { cause: e });
      notifierMetrics.webhookDuration.observe(err.durationMs / 1000);
      // A URL that may not be called, or cannot be, will not get better by waiting.
      const permanent = err.code === "blocked_address" || err.code === "invalid_url";
      return {
        verdict: permanent ? "permanent" : "retryable",
        statusCode: null,
        error: `${failureKind(err)}: ${failureText(err)}`,
        excerpt: null,
        durationMs: err.durationMs,
        eventId,
      };
    }
  }

  /** The test event, sent now and answered with the outcome (behaviour §3.7 with the decisions' message). */
  async test(
    room: { id: string; name: string; webhook_url: string | null; webhook_secret: string | null },
    now: Date,
  ): Promise<WebhookTestResult> {
    if (!room.webhook_url)
      return this.tested("error", {
        success: false,
        message: "",
        error: "No webhook URL configured",
        status_code: null,
        response_preview: null,
      });
    const body = testBody(room, newEventId(), now);
    const headers = webhookHeaders({ event: "test", retry: 0, deliveryId: randomUUID(), secret: room.webhook_secret, body, now });
    let res: HttpResponse;
    try {
      res = await this.post(room.webhook_url, headers, body, this.settings.WEBHOOK_TEST_TIMEOUT_MS, 64 * 1024);
    } catch (e) {
      const error = testError(e, this.settings.WEBHOOK_TEST_TIMEOUT_MS);
      return this.tested("error", { success: false, message: error, error, status_code: null, response_preview: null });
    }
    const success = res.status >= 200 && res.status < 300;
    const text = res.body.toString("utf8");
    return this.tested(success ? "success" : "failed", {
      success,
      message: success ? "Webhook test successful" : testFailureMessage(res.status, text),
      error: "",
      status_code: res.status,
      response_preview: text === "" ? null : text,
    });
  }

  /** One POST: a bounded part of the answer is kept, the rest is not read. */
  private post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, maxBodyBytes: number): Promise<HttpResponse> {
    return this.http.request(url, { method: "POST", headers, body, timeoutMs, maxBodyBytes, oversized: "truncate" });
  }

  private tested(result: "success" | "failed" | "error", r: WebhookTestResult): WebhookTestResult {
    notifierMetrics.webhookTests.inc({ result });
    return r;
  }
}

/** The reference's error texts, with the configured timeout. */
function testError(e: unknown, timeoutMs: number): string {
  if (!(e instanceof HttpError)) return `Unexpected error: ${e instanceof Error ? e.message : String(e)}`;
  switch (e.code) {
    case "timeout":
      return `Webhook request timed out (${timeoutMs / 1000} seconds)`;
    case "blocked_address":
    case "network":
      return `Could not connect to webhook URL: ${failureText(e)}`;
    default:
      return `Unexpected error: ${e.message}`;
  }
}

/** The kind recorded with a failed delivery attempt (`blocked: …`, `connect: …`). */
function failureKind(e: HttpError): string {
  switch (e.code) {
    case "blocked_address":
      return "blocked";
    case "network":
      return "connect";
    case "timeout":
    case "invalid_url":
      return e.code;
    default:
      return "other";
  }
}

/** What went wrong, in the webhook's words: which address was refused, or the system's error code. */
function failureText(e: HttpError): string {
  const { host, address, addressKind, reason } = e.details;
  if (e.code === "blocked_address" && address && addressKind) {
    const why = `a ${addressKind} address (not allowed unless ALLOW_PRIVATE_URLS is set)`;
    return host === undefined || host === address ? `${address} is ${why}` : `${host} resolves to ${address}, ${why}`;
  }
  if (e.code === "network" && reason) return reason;
  return e.message;
}
