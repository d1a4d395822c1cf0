// Request/reply operations of the notifier service (`rpc.notifier.*`): the config flags, the webhook
// test, sharing a transcript by e-mail or to the team chat, and the team-chat directory.
import { z } from "@hono/zod-openapi";
import { ConfigResponse, Stream, Topic } from "./api";
import { WebhookTestResult } from "../rooms/api";
import { defineOp, withCaller } from "../common/rpc";
import { SendEmailResponse } from "../transcripts/api";

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
} as const;
