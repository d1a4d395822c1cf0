// Meeting routes (api.md §2.5 create meeting, §2.7 room meetings, §2.8 meetings by id) and the
// incoming video-platform webhooks (§2.17). Routes only authenticate and validate; the meetings
// service decides who may see or change what.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import {
  AddEmailRecipientRequest,
  CreateRoomMeeting,
  EmailRecipientsResponse,
  Meeting,
  MeetingConsentRequest,
  MeetingConsentResponse,
  MeetingDeactivateResponse,
  StartRecordingRequest,
  StartRecordingResponse,
  WebhookAck,
  WherebyWebhookEvent,
  calendarOps,
  meetingsOps,
} from "@scribe/contracts";
import { isAppError } from "@scribe/kit";
import { call, requireUser, type AppContext, type AppEnv } from "../http/context";
import { IdempotencyKeyHeaders, idempotent } from "../http/idempotency";
import { body, json, validationError } from "./responses";

const RoomNameParam = z.object({ room_name: z.string() });
const RoomMeetingParams = z.object({ room_name: z.string(), meeting_id: z.string() });
const MeetingIdParam = z.object({ meeting_id: z.string() });
const tags = ["meetings"];
/** What a call answers when no calendar service is running (kit rpcCall, no responders). */
const CALENDAR_ABSENT = "The calendar service is unavailable";

export function meetingRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rooms/{room_name}/meeting",
      operationId: "v1_rooms_create_meeting",
      tags,
      middleware: [idempotent] as const,
      request: { params: RoomNameParam, ...body(CreateRoomMeeting), headers: IdempotencyKeyHeaders },
      responses: { 200: json(Meeting), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(c, meetingsOps.create, {
          room_name: c.req.valid("param").room_name,
          allow_duplicated: c.req.valid("json").allow_duplicated ?? false,
        }),
        200,
      ),
  );

  // Hono matches in registration order: the static segment `active` must come before the
  // `{meeting_id}` route below. The calendar routes `/meetings/upcoming` and `/meetings` (list)
  // must likewise be registered before it (app.ts registers calendarRoutes first).
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_name}/meetings/active",
      operationId: "v1_rooms_list_active_meetings",
      tags,
      request: { params: RoomNameParam },
      responses: { 200: json(z.array(Meeting)), ...validationError },
    }),
    async (c) => c.json(await call(c, meetingsOps.listActive, { room_name: c.req.valid("param").room_name }), 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/rooms/{room_name}/meetings/{meeting_id}",
      operationId: "v1_rooms_get_meeting",
      tags,
      request: { params: RoomMeetingParams },
      responses: { 200: json(Meeting), ...validationError },
    }),
    async (c) => c.json(await call(c, meetingsOps.get, c.req.valid("param")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/rooms/{room_name}/meetings/{meeting_id}/join",
      operationId: "v1_rooms_join_meeting",
      tags,
      request: { params: RoomMeetingParams, query: z.object({ display_name: z.string().nullable().optional() }) },
      responses: { 200: json(Meeting), ...validationError },
    }),
    async (c) => {
      const { room_name, meeting_id } = c.req.valid("param");
      const display_name = c.req.valid("query").display_name ?? null;
      try {
        return c.json(await call(c, meetingsOps.join, { room_name, meeting_id, display_name }), 200);
      } catch (e) {
        // Early join (decisions, Meetings): the id may be a calendar event's that has no meeting yet;
        // the calendar service makes it (from 5 minutes before the start) and joins it as the caller.
        if (!isAppError(e) || e.kind !== "not_found" || e.detail !== "Meeting not found") throw e;
        // It creates a platform meeting and then joins it: two calls of the meetings service.
        const timeoutMs = 2 * c.get("deps").config.RPC_TIMEOUT_MS;
        try {
          return c.json(await call(c, calendarOps.joinEvent, { room_name, event_id: meeting_id, display_name }, { timeoutMs }), 200);
        } catch (err) {
          // An installation without the calendar service: the id is simply unknown.
          if (isAppError(err) && err.detail === CALENDAR_ABSENT) throw e;
          throw err;
        }
      }
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/meetings/{meeting_id}/consent",
      operationId: "v1_meeting_audio_consent",
      tags,
      request: { params: MeetingIdParam, ...body(MeetingConsentRequest) },
      responses: { 200: json(MeetingConsentResponse), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(c, meetingsOps.consent, {
          meeting_id: c.req.valid("param").meeting_id,
          consent_given: c.req.valid("json").consent_given,
        }),
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/meetings/{meeting_id}/deactivate",
      operationId: "v1_meeting_deactivate",
      tags,
      middleware: [requireUser] as const,
      request: { params: MeetingIdParam },
      responses: { 200: json(MeetingDeactivateResponse), ...validationError },
    }),
    async (c) => c.json(await call(c, meetingsOps.deactivate, { meeting_id: c.req.valid("param").meeting_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/meetings/{meeting_id}/recordings/start",
      operationId: "v1_start_recording",
      tags,
      request: { params: MeetingIdParam, ...body(StartRecordingRequest) },
      responses: { 200: json(StartRecordingResponse), ...validationError },
    }),
    async (c) => {
      const { type, instanceId } = c.req.valid("json");
      return c.json(
        await call(c, meetingsOps.startRecording, { meeting_id: c.req.valid("param").meeting_id, type, instance_id: instanceId }),
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/meetings/{meeting_id}/email-recipient",
      operationId: "v1_add_email_recipient",
      tags,
      request: { params: MeetingIdParam, ...body(AddEmailRecipientRequest) },
      responses: { 200: json(EmailRecipientsResponse), ...validationError },
    }),
    async (c) =>
      c.json(
        await call(c, meetingsOps.addEmailRecipient, { meeting_id: c.req.valid("param").meeting_id, email: c.req.valid("json").email }),
        200,
      ),
  );

  webhookRoutes(app);
}

/**
 * The platforms sign the exact bytes they send (Whereby: a re-serialisation of them), so these
 * routes read the raw body and let no JSON parser run first; the meetings service verifies.
 */
function webhookRoutes(app: OpenAPIHono<AppEnv>): void {
  const forward = async (c: AppContext, op: (typeof meetingsOps)["dailyWebhook" | "wherebyWebhook"], signed: string[]) => {
    const raw = Buffer.from(await c.req.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const name of signed) {
      const value = c.req.header(name);
      if (value !== undefined) headers[name] = value;
    }
    return c.json(await call(c, op, { body_base64: raw.toString("base64"), headers }), 200);
  };

  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/daily/webhook",
    operationId: "v1_webhook",
    tags: ["daily"],
    description: "Daily (platform A) webhook; signed with X-Webhook-Signature over X-Webhook-Timestamp and the raw body.",
    responses: { 200: json(WebhookAck) },
  });
  app.post("/v1/daily/webhook", (c) => forward(c, meetingsOps.dailyWebhook, ["x-webhook-signature", "x-webhook-timestamp"]));

  app.openAPIRegistry.registerPath({
    method: "post",
    path: "/v1/whereby",
    operationId: "v1_whereby_webhook",
    tags: ["whereby"],
    request: { body: { content: { "application/json": { schema: WherebyWebhookEvent } }, required: true } },
    responses: { 200: json(WebhookAck), ...validationError },
  });
  app.post("/v1/whereby", (c) => forward(c, meetingsOps.wherebyWebhook, ["whereby-signature"]));
}
