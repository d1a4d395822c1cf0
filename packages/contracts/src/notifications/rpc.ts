// Request/reply operations of the notifier service (`rpc.notifier.*`): the config flags, the webhook
// test, sharing a transcript by e-mail or to the team chat, the team-chat directory, and the operators'
// view of outgoing deliveries (`scribe webhooks`).
import { z } from "@hono/zod-openapi";
import { ConfigResponse, DeliveryChannel, DeliveryStatus, Stream, Topic } from "./api";
import { WebhookTestResult } from "../rooms/api";
import { defineOp, withCaller } from "../common/rpc";
import { SendEmailResponse } from "../transcripts/api";

const Timestamp = z.iso.datetime({ offset: true });

/** One outgoing delivery as operators see it (the dispatcher's lease stays inside the notifier). */
export const DeliverySummary = z.object({
  id: z.string(),
  channel: DeliveryChannel,
  kind: z.string(),
  transcript_id: z.string(),
  room_id: z.string().nullable(),
  run_id: z.string().nullable(),
  target: z.unknown(),
  payload: z.unknown(),
  status: DeliveryStatus,
  attempts: z.number().int(),
  round_attempts: z.number().int(),
  next_attempt_at: Timestamp.nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Timestamp.nullable(),
});
export type DeliverySummary = z.infer<typeof DeliverySummary>;

export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  event_id: z.string().nullable(),
  started_at: Timestamp,
  duration_ms: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
  /** `interrupted`: the notifier stopped during the attempt (it may have reached the receiver); the next one is a retry. */
  outcome: z.enum(["delivered", "retry", "failed", "gave_up", "cancelled", "interrupted"]),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** The longest the webhook test can take (its own timeout plus the room lookup), for callers' deadlines. */
export const WEBHOOK_TEST_RPC_TIMEOUT_MS = 30_000;
/** The longest sharing by e-mail or to the team chat can take (SMTP or Zulip, after reading the transcript). */
export const SHARE_RPC_TIMEOUT_MS = 90_000;

export const notifierOps = {
  /** GET /v1/config: what is configured (reads no credentials). */
  config: defineOp("notifier.config", withCaller({}), ConfigResponse),
  /** POST /v1/rooms/{room_id}/webhook/test: owner only; sends the test event and waits for the answer. */
  testWebhook: defineOp("notifier.test_webhook", withCaller({ room_id: z.string() }), WebhookTestResult),
  /** POST /v1/transcripts/{id}/email: READ with the caller; the link only for public transcripts. */
  sendEmail: defineOp("notifier.send_email", withCaller({ transcript_id: z.string(), email: z.string() }), SendEmailResponse),
  /** POST /v1/transcripts/{id}/zulip: READ with the caller; updates the transcript's earlier message. */
  postZulip: defineOp(
    "notifier.post_zulip",
    withCaller({ transcript_id: z.string(), stream: z.string(), topic: z.string(), include_topics: z.boolean() }),
    z.null(),
  ),
  zulipStreams: defineOp("notifier.zulip_streams", withCaller({}), z.array(Stream)),
  zulipTopics: defineOp("notifier.zulip_topics", withCaller({ stream_id: z.number().int() }), z.array(Topic)),
  /** Operators only (caller.via "internal"): deliveries, newest first. */
  listDeliveries: defineOp(
    "notifier.list_deliveries",
    withCaller({
      channel: DeliveryChannel.optional(),
      room_id: z.string().optional(),
      status: DeliveryStatus.optional(),
      limit: z.number().int().min(1).max(1000).default(50),
    }),
    z.array(DeliverySummary),
  ),
  /** Operators only: one delivery with every attempt; 404 when unknown. */
  getDelivery: defineOp(
    "notifier.get_delivery",
    withCaller({ id: z.string() }),
    DeliverySummary.extend({ attempt_log: z.array(DeliveryAttempt) }),
  ),
  /** Operators only: due again now with a new retry round, same delivery id; 404 when unknown. */
  redeliver: defineOp("notifier.redeliver", withCaller({ id: z.string() }), z.object({ id: z.string(), redelivered: z.literal(true) })),
} as const;
