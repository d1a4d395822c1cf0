// Notifier routes: config flags (api.md §2.4), the webhook test (§2.5), sharing a transcript by
// e-mail or to the team chat (§2.15) and the team-chat directory (§2.16). Routes authenticate and
// validate; the notifier decides who may do what.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import {
  ConfigResponse,
  SendEmailRequest,
  SendEmailResponse,
  SHARE_RPC_TIMEOUT_MS,
  Stream,
  Topic,
  WEBHOOK_TEST_RPC_TIMEOUT_MS,
  WebhookTestResult,
  ZulipPostQuery,
  notifierOps,
  parseQueryBool,
} from "@scribe/contracts";
import { call, requireUser, type AppEnv } from "../http/context";
import { body, json, validationError } from "./responses";

const TranscriptIdParam = z.object({ transcript_id: z.string() });

export function notificationRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/config",
      operationId: "v1_get_config",
      tags: ["config"],
      responses: { 200: json(ConfigResponse) },
    }),
    async (c) => c.json(await call(c, notifierOps.config, {}), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rooms/{room_id}/webhook/test",
      operationId: "v1_rooms_test_webhook",
      tags: ["rooms"],
      middleware: [requireUser] as const,
      request: { params: z.object({ room_id: z.string() }) },
      responses: { 200: json(WebhookTestResult), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(c, notifierOps.testWebhook, { room_id: c.req.valid("param").room_id }, { timeoutMs: WEBHOOK_TEST_RPC_TIMEOUT_MS }),
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/email",
      operationId: "v1_transcript_send_email",
      tags: ["transcripts"],
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, ...body(SendEmailRequest) },
      responses: { 200: json(SendEmailResponse), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(
          c,
          notifierOps.sendEmail,
          { transcript_id: c.req.valid("param").transcript_id, email: c.req.valid("json").email },
          { timeoutMs: SHARE_RPC_TIMEOUT_MS },
        ),
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/zulip",
      operationId: "v1_transcript_post_to_zulip",
      tags: ["transcripts"],
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, query: ZulipPostQuery },
      responses: { 200: json(z.null()), ...validationError },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const req = {
        transcript_id: c.req.valid("param").transcript_id,
        stream: q.stream,
        topic: q.topic,
        include_topics: parseQueryBool(q.include_topics) === true,
      };
      return c.json(await call(c, notifierOps.postZulip, req, { timeoutMs: SHARE_RPC_TIMEOUT_MS }), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/zulip/streams",
      operationId: "v1_zulip_get_streams",
      tags: ["zulip"],
      responses: { 200: json(z.array(Stream)) },
    }),
    async (c) => c.json(await call(c, notifierOps.zulipStreams, {}), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/zulip/streams/{stream_id}/topics",
      operationId: "v1_zulip_get_topics",
      tags: ["zulip"],
      request: { params: z.object({ stream_id: z.coerce.number().int().openapi({ type: "integer" }) }) },
      responses: { 200: json(z.array(Topic)), ...validationError },
    }),
    async (c) => c.json(await call(c, notifierOps.zulipTopics, { stream_id: c.req.valid("param").stream_id }), 200),
  );
}
