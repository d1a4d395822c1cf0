// The notifier's pure rules: retry schedules, webhook bytes and signatures, e-mail and chat content,
// and who is notified after processing.
import { createHmac } from "node:crypto";
import { completedWebvtt, topicsToWebvtt, wordsToWebvtt, type TranscriptState, type Word } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import { emailHtml, emailSubject, emailText, recipientsAfterProcessing } from "../src/domain/email";
import { planCompletion, type MeetingCopy, type RoomCopy } from "../src/domain/notifications";
import { afterAttempt, attemptOffsets, httpVerdict, MESSAGE_RETRY, WEBHOOK_RETRY } from "../src/domain/retry";
import {
  calendarEventOf,
  completedBody,
  signature,
  testBody,
  testFailureMessage,
  transcriptUrl,
  webhookHeaders,
  webhookTranscript,
} from "../src/domain/webhook";
import { formatDurationMs, formatTime, zulipMessage } from "../src/domain/zulip";

const DAY = 86_400_000;

function transcript(overrides: Partial<TranscriptState> = {}): TranscriptState {
  return {
    id: "t1",
    version: 3,
    name: "n",
    status: "ended",
    error: null,
    locked: false,
    duration: 1_234_567,
    created_at: "2026-11-20T09:30:00.000Z",
    updated_at: "2026-11-20T10:00:00.000Z",
    title: "Weekly Standup",
    short_summary: "We met.",
    long_summary: "We met and talked.",
    action_items: null,
    participants: [{ id: "p1", speaker: 0, name: "Alice", user_id: null }],
    source_language: "en",
    target_language: "en",
    reviewed: false,
    audio_location: "storage",
    audio_deleted: null,
    user_id: "owner",
    share_mode: "semi-private",
    source_kind: "room",
    meeting_id: "m1",
    recording_id: "r1",
    room_id: "room1",
    webvtt: "WEBVTT\n",
    deleted_at: null,
    ...overrides,
  };
}
const room = (o: Partial<RoomCopy> = {}): RoomCopy => ({
  id: "room1",
  name: "standup",
  user_id: "owner",
  webhook_url: "https://hooks.example.com/x",
  zulip_auto_post: false,
  zulip_stream: "",
  zulip_topic: "",
  email_transcript_to: null,
  version: 1,
  deleted: false,
  ...o,
});
const meeting = (o: Partial<MeetingCopy> = {}): MeetingCopy => ({
  id: "m1",
  room_id: "room1",
  email_recipients: [],
  calendar_event_id: null,
  calendar_metadata: null,
  version: 1,
  deleted: false,
  ...o,
});
const topics = [{ id: "x", title: "Intro", summary: "Hello", timestamp: 65.5, duration: 10, webvtt: "WEBVTT\n" }];
const completed = (t = transcript()) => ({ transcript: t, topics, run_id: "run-1", completed_at: "2026-11-20T10:00:00.000Z" });
const settings = { emailEnabled: true, zulipEnabled: true, uiBaseUrl: "https://app.example.com/" };

describe("retry schedule", () => {
  const offsets = attemptOffsets(WEBHOOK_RETRY);

  it("webhooks: 60 s doubling to one hour, the last attempt within 5 % of 24 h after the first", () => {
    const last = offsets[offsets.length - 1]!;
    expect(Math.abs(last - DAY)).toBeLessThanOrEqual(0.05 * DAY);
    expect(offsets.slice(0, 8)).toEqual([0, 60_000, 180_000, 420_000, 900_000, 1_860_000, 3_780_000, 7_380_000]);
    expect(offsets).toHaveLength(30);
    const gaps = offsets.slice(1).map((o, i) => o - offsets[i]!);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(Math.max(...gaps)).toBe(3_600_000);
  });

  it("e-mail and chat posts: 30 s doubling to 15 min over about an hour", () => {
    const o = attemptOffsets(MESSAGE_RETRY);
    expect(o.slice(0, 4)).toEqual([0, 30_000, 90_000, 210_000]);
    expect(Math.abs(o[o.length - 1]! - 3_600_000)).toBeLessThanOrEqual(0.05 * 3_600_000);
  });

  it("retries 5xx, 408, 429 and 3xx; stops on other 4xx; 2xx is delivered", () => {
    expect([200, 204, 299].map(httpVerdict)).toEqual(["delivered", "delivered", "delivered"]);
    expect([400, 401, 403, 404, 410, 422].map(httpVerdict)).toEqual(Array(6).fill("permanent"));
    expect([408, 429, 500, 502, 503, 301].map(httpVerdict)).toEqual(Array(6).fill("retryable"));
  });

  it("schedules the next slot after the first attempt's time, not after the previous attempt", () => {
    const start = new Date("2026-01-01T00:00:00Z");
    const late = new Date(start.getTime() + 60_000 + 25_000); // the second attempt ran 25 s late
    expect(afterAttempt("retryable", { roundStartedAt: start, roundAttempts: 2, now: late, offsets })).toEqual({
      status: "pending",
      nextAttemptAt: new Date(start.getTime() + 180_000),
    });
  });

  it("skips slots missed while the service was down instead of firing them back to back", () => {
    const start = new Date("2026-01-01T00:00:00Z");
    const afterOutage = new Date(start.getTime() + 5 * 3_600_000 + 1);
    const next = afterAttempt("retryable", { roundStartedAt: start, roundAttempts: 2, now: afterOutage, offsets });
    expect(next.status).toBe("pending");
    expect((next as { nextAttemptAt: Date }).nextAttemptAt.getTime()).toBe(start.getTime() + 7_380_000 + 3 * 3_600_000);
  });

  it("gives up past the last slot, and at once when refused", () => {
    const start = new Date("2026-01-01T00:00:00Z");
    expect(
      afterAttempt("retryable", { roundStartedAt: start, roundAttempts: 30, now: new Date(start.getTime() + DAY + 200_000), offsets }),
    ).toEqual({
      status: "failed",
      reason: "window_passed",
    });
    expect(afterAttempt("permanent", { roundStartedAt: start, roundAttempts: 1, now: start, offsets })).toEqual({
      status: "failed",
      reason: "refused",
    });
    expect(afterAttempt("delivered", { roundStartedAt: start, roundAttempts: 9, now: start, offsets })).toEqual({ status: "delivered" });
  });
});

describe("webhook payload", () => {
  const now = new Date("2026-11-21T10:00:00.123Z");

  it("is the same, byte for byte, from a completion as v1 (the WebVTT twice) and v2 (once, topics as parts of it) carry it", () => {
    const w = (text: string, start: number, speaker: number): Word => ({ text, start, end: start + 0.4, speaker });
    // The first speaker runs on across the boundary: the topics' WebVTT is cut where the transcript's is not.
    const words = [
      [w("Hello", 0, 0), w(" all,", 1, 0), w(" welcome", 2, 0)],
      [w(" to", 3, 0), w(" the", 4, 0), w(" review.", 5, 0), w(" Thanks.", 6, 1)],
      [],
    ];
    const meta = (i: number) => ({ id: `x${i}`, title: `T${i}`, summary: "S", timestamp: i * 3, duration: i === 2 ? null : 3 });
    const t = transcript({ webvtt: topicsToWebvtt(words.map((ws) => ({ words: ws }))) });
    const v1 = { ...completed(t), topics: words.map((ws, i) => ({ ...meta(i), webvtt: wordsToWebvtt(ws) })) };
    const { webvtt: _once, ...state } = t;
    const packed = completedWebvtt(
      t.webvtt,
      words.map((ws) => ({ words: ws })),
    );
    const v2 = {
      ...completed(),
      transcript: state,
      webvtt_gzip: packed.webvtt_gzip,
      topics: words.map((_ws, i) => ({ ...meta(i), webvtt_parts: packed.topicParts[i] })),
    };
    expect(JSON.stringify(v2).length).toBeLessThan(JSON.stringify(v1).length);
    const body = (c: Parameters<typeof planCompletion>[0]) =>
      completedBody(
        JSON.parse(JSON.stringify(planCompletion(c, room({ zulip_auto_post: true, zulip_stream: "s" }), meeting(), settings).webhook)),
        "e",
        now,
      );
    expect(body(v2)).toBe(body(v1));
    expect(JSON.parse(body(v2)).transcript.topics[1].webvtt).toBe(wordsToWebvtt(words[1]!));
    expect(planCompletion(v2, room({ zulip_auto_post: true, zulip_stream: "s" }), null, settings).zulip).toEqual(
      planCompletion(v1, room({ zulip_auto_post: true, zulip_stream: "s" }), null, settings).zulip,
    );
  });

  it("is compact JSON in the reference's field order, with this attempt's event id and time", () => {
    const plan = planCompletion(completed(), room(), meeting(), settings);
    const body = completedBody(JSON.parse(JSON.stringify(plan.webhook)), "a".repeat(32), now);
    expect(body).not.toMatch(/\n| {2}/);
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(["event", "event_id", "timestamp", "transcript", "room", "calendar_event"]);
    expect(Object.keys(parsed.transcript)).toEqual([
      "id",
      "room_id",
      "created_at",
      "duration",
      "title",
      "short_summary",
      "long_summary",
      "webvtt",
      "topics",
      "participants",
      "source_language",
      "target_language",
      "status",
      "frontend_url",
      "action_items",
    ]);
    expect(parsed).toMatchObject({ event: "transcript.completed", event_id: "a".repeat(32), timestamp: "2026-11-21T10:00:00.123000Z" });
    expect(parsed.transcript.frontend_url).toBe("https://app.example.com/transcripts/t1");
    expect(parsed.transcript.duration).toBe(1_234_567);
    expect(parsed.transcript.topics).toEqual([{ title: "Intro", summary: "Hello", timestamp: 65.5, duration: 10, webvtt: "WEBVTT\n" }]);
    expect(parsed.transcript.participants).toEqual([{ id: "p1", name: "Alice", speaker: 0 }]);
    expect(parsed.room).toEqual({ id: "room1", name: "standup" });
    expect(parsed.calendar_event).toBeNull();
    expect(body).not.toMatch(/audio/);
  });

  it("keeps the declared order of action items read back from storage", () => {
    const t = transcript({
      action_items: {
        decisions: [{ decision: "ship", rationale: null, decided_by: null, decided_by_participant_id: null }],
        next_steps: [],
      },
    });
    const stored = JSON.parse(
      JSON.stringify({
        ...webhookTranscript(t, [], "https://a"),
        action_items: {
          next_steps: [],
          decisions: [{ decided_by_participant_id: null, decided_by: null, rationale: null, decision: "ship" }],
        },
      }),
    );
    const body = completedBody({ transcript: stored, room: { id: "r", name: "n" }, calendar_event: null }, "e", now);
    expect(body).toContain(
      '"action_items":{"decisions":[{"decision":"ship","rationale":null,"decided_by":null,"decided_by_participant_id":null}],"next_steps":[]}',
    );
  });

  it("carries the calendar event with attendee e-mail addresses", () => {
    const ev = calendarEventOf("cal-1", {
      title: "Planning",
      description: "",
      attendees: [
        { email: "a@example.com", name: "A", status: "accepted" },
        { name: "No Mail" },
        { email: "b@example.com", status: "tentative" },
      ],
      start_time: "2026-11-20T09:00:00Z",
      end_time: "2026-11-20T10:00:00Z",
      ics_uid: "planning-1@example.com",
      location: "",
    });
    expect(ev).toEqual({
      id: "cal-1",
      ics_uid: "planning-1@example.com",
      title: "Planning",
      start_time: "2026-11-20T09:00:00Z",
      end_time: "2026-11-20T10:00:00Z",
      description: null,
      location: null,
      attendees: ["a@example.com", "b@example.com"],
    });
    expect(calendarEventOf(null, null)).toBeNull();
  });

  it("signs t.body with HMAC-SHA256 of the secret, afresh for every attempt", () => {
    const body = testBody({ id: "r", name: "n" }, "e1", now);
    const sig = signature("s3cret", body, now);
    const t = Math.floor(now.getTime() / 1000);
    expect(sig).toBe(`t=${t},v1=${createHmac("sha256", "s3cret").update(`${t}.${body}`).digest("hex")}`);
    const h = webhookHeaders({ event: "transcript.completed", retry: 3, deliveryId: "d1", secret: "s3cret", body, now });
    expect(h).toMatchObject({
      "content-type": "application/json",
      "user-agent": "Reflector-Webhook/1.0",
      "x-webhook-event": "transcript.completed",
      "x-webhook-retry": "3",
      "x-webhook-delivery-id": "d1",
      "x-webhook-signature": sig,
    });
    expect(webhookHeaders({ event: "test", retry: 0, deliveryId: "d", secret: null, body, now })).not.toHaveProperty("x-webhook-signature");
  });

  it("the test event is the reference's", () => {
    expect(JSON.parse(testBody({ id: "r", name: "n" }, "e1", now))).toEqual({
      event: "test",
      event_id: "e1",
      timestamp: "2026-11-21T10:00:00.123000Z",
      message: "This is a test webhook from Reflector",
      room: { id: "r", name: "n" },
    });
  });

  it("a failed test's message holds the status and the JSON body's message, else the plain body's start", () => {
    expect(testFailureMessage(500, '{"message":"Workflow could not be started!"}')).toBe(
      "Webhook test failed (Status: 500): Workflow could not be started!",
    );
    expect(testFailureMessage(422, '{"detail":"bad signature"}')).toBe("Webhook test failed (Status: 422): bad signature");
    expect(testFailureMessage(400, '{"error":{"message":"nested"}}')).toBe("Webhook test failed (Status: 400): nested");
    expect(testFailureMessage(404, '{"ok":false}')).toBe("Webhook test failed (Status: 404)");
    expect(testFailureMessage(502, "Bad gateway")).toBe("Webhook test failed (Status: 502): Bad gateway");
    expect(testFailureMessage(503, "")).toBe("Webhook test failed (Status: 503)");
    expect(testFailureMessage(500, "x".repeat(400))).toHaveLength("Webhook test failed (Status: 500): ".length + 150);
  });
});

describe("transcript e-mail", () => {
  const content = {
    title: "Weekly Standup",
    shortSummary: "We met.",
    timestampedText: "[00:00] Alice: Hi.\n[00:05] Bob: Hello.",
    url: "https://app/transcripts/t1",
  };

  it("plain part with link: title, summary, transcript, link, footer", () => {
    expect(emailText(content)).toBe(
      "Reflector: Weekly Standup\n\nSummary:\nWe met.\n\nTranscript:\n[00:00] Alice: Hi.\n[00:05] Bob: Hello.\n\nView transcript: https://app/transcripts/t1\n\n" +
        "This email was sent because you requested to receive the transcript from a meeting.",
    );
  });

  it("without link, summary or topics the sections are left out", () => {
    const text = emailText({ ...content, url: null, shortSummary: null, timestampedText: "" });
    expect(text).toBe("Reflector: Weekly Standup\n\nThis email was sent because you requested to receive the transcript from a meeting.");
    expect(emailHtml({ ...content, url: null })).not.toMatch(/View Transcript|https:\/\/app/);
    expect(emailHtml({ ...content, timestampedText: "" })).not.toMatch(/<h3>Transcript/);
  });

  it("an untitled recording is 'Unnamed recording'; HTML escapes everything", () => {
    expect(emailSubject(null)).toBe("Reflector: Unnamed recording");
    const html = emailHtml({ ...content, title: "<script>alert(1)</script>", timestampedText: "[00:01] <b>: x & y" });
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    expect(html).toContain("<strong>&lt;b&gt;:</strong> x &amp; y");
    expect(emailHtml(content)).toContain('href="https://app/transcripts/t1"');
    expect(emailHtml(content)).toContain("View Transcript");
  });

  it("meeting recipients keep their link flag; the room's address always gets the link", () => {
    expect(
      recipientsAfterProcessing(
        [
          { email: "a@example.com", include_link: true },
          { email: "b@example.com", include_link: false },
          { email: "Owner@Example.com", include_link: false },
          { email: "A@example.com", include_link: false },
        ],
        "owner@example.com",
      ),
    ).toEqual([
      { to: "a@example.com", include_link: true, kind: "meeting_recipient" },
      { to: "b@example.com", include_link: false, kind: "meeting_recipient" },
      { to: "Owner@Example.com", include_link: true, kind: "room_recipient" },
    ]);
  });
});

describe("team-chat message", () => {
  it("formats times like Python's timedelta", () => {
    expect([formatTime(0), formatTime(65.9), formatTime(3725), formatTime(86_400 + 61)]).toEqual([
      "00:00",
      "01:05",
      "1:02:05",
      "1 day, 0:01:01",
    ]);
    expect(formatDurationMs(1_234_567)).toBe("20:34");
  });

  it("is the reference's Markdown: title, date, link, duration, summary and topics spoilers, rule", () => {
    const text = zulipMessage({ ...transcript(), topics, includeTopics: true, uiBaseUrl: "https://app.example.com" });
    expect(text).toBe(
      "# Reflector – Weekly Standup\n\n**Date**: <time:2026-11-20T09:30:00.000+00:00>\n" +
        "**Link**: [app.example.com](https://app.example.com/transcripts/t1)\n**Duration**: 20:34\n\n" +
        "```spoiler Summary\nWe met and talked.\n```\n\n```spoiler Topics\n1. [01:05] Intro\n```\n\n-----\n",
    );
    expect(
      zulipMessage({ ...transcript({ title: null, long_summary: null }), topics, includeTopics: false, uiBaseUrl: "https://a" }),
    ).toMatch(/^# Reflector – Unnamed recording[\s\S]*No summary available\n```\n\n-----\n$/);
  });
});

describe("what a completed transcript sets off", () => {
  it("a room with a webhook URL gets a delivery; without one, none", () => {
    expect(planCompletion(completed(), room(), null, settings).webhook).not.toBeNull();
    expect(planCompletion(completed(), room({ webhook_url: "" }), null, settings).webhook).toBeNull();
    expect(planCompletion(completed(), room({ deleted: true }), null, settings).webhook).toBeNull();
    expect(planCompletion(completed(transcript({ room_id: null })), room(), null, settings).webhook).toBeNull();
  });

  it("reports to the room's stream only with auto-post, a stream and team chat configured", () => {
    const r = room({ zulip_auto_post: true, zulip_stream: "general", zulip_topic: "meetings" });
    expect(planCompletion(completed(), r, null, settings).zulip).toMatchObject({ stream: "general", topic: "meetings" });
    expect(planCompletion(completed(), r, null, { ...settings, zulipEnabled: false }).zulip).toBeNull();
    expect(planCompletion(completed(), room({ zulip_auto_post: true }), null, settings).zulip).toBeNull();
  });

  it("mails meeting recipients and the room's address, when e-mail is configured", () => {
    const m = meeting({ email_recipients: [{ email: "p@example.com", include_link: false }] });
    const withRecipients = planCompletion(completed(), room({ email_transcript_to: "owner@example.com" }), m, settings);
    expect(withRecipients.emails.map((e) => [e.to, e.include_link])).toEqual([
      ["p@example.com", false],
      ["owner@example.com", true],
    ]);
    const noSmtp = planCompletion(completed(), room({ email_transcript_to: "owner@example.com" }), m, { ...settings, emailEnabled: false });
    expect(noSmtp.emails).toEqual([]);
  });

  it("links use UI_BASE_URL", () => expect(transcriptUrl("https://app.example.com/", "t9")).toBe("https://app.example.com/transcripts/t9"));
});
