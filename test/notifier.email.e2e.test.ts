// Transcript e-mails through a local SMTP server: sharing on demand (POST /v1/transcripts/{id}/email)
// and the e-mails after processing to the meeting's recipients and the room's address, with retries.
import { randomUUID } from "node:crypto";
import { issuesOf, ok, type Schemas } from "@scribe/client";
import type { Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish } from "./support/media";
import {
  attempts,
  deliveriesOf,
  deliveryNow,
  endedTranscript,
  meetingState,
  notifierCaughtUp,
  notifierDb,
  notifierHooks,
  publishWholeTranscript,
  type DeliverDue,
} from "./support/notifier";
import { answer, onTranscript } from "./support/api";
import { startSystem, streamEvents, type TestSystem } from "./support/system";
import { startSmtpCapture, type CapturedMail, type SmtpCapture } from "@scribe/simulators";

const UI = "https://scribe.example.com";
let sys: TestSystem;
let smtp: SmtpCapture;
let db: Sql;
let deliverDue: DeliverDue;

beforeAll(async () => {
  smtp = await startSmtpCapture("transcripts@scribe.example.com");
  sys = await startSystem({
    label: "email",
    services: ["rooms", "projection", "notifier", "gateway"],
    env: {
      ...smtp.env,
      UI_BASE_URL: UI,
      NOTIFIER_DISPATCH_INTERVAL_MS: "0",
      EMAIL_SHARE_PER_USER_PER_HOUR: "6",
      EMAIL_SHARE_PER_TRANSCRIPT_PER_HOUR: "4",
    },
  });
  db = notifierDb(sys);
  deliverDue = notifierHooks(sys).deliverDue;
});
afterAll(async () => {
  await db?.end();
  await sys?.stop();
  await smtp?.close();
});

const linkOf = (id: string) => `${UI}/transcripts/${id}`;
const hasLink = (m: CapturedMail, id: string) => (m.parsed.text ?? "").includes(linkOf(id)) || String(m.parsed.html).includes(linkOf(id));

async function room(body: Omit<Schemas["CreateRoom"], "name"> = {}): Promise<{ id: string; name: string }> {
  const name = `mail-${randomUUID().slice(0, 8)}`;
  const { id } = await ok(sys.client("alice").POST("/v1/rooms", { body: { name, ...body } }));
  await notifierCaughtUp(sys, "ROOMS");
  return { id, name };
}

const sendEmail = (as: string | null, transcriptId: string, email: string) =>
  sys.client(as).POST("/v1/transcripts/{transcript_id}/email", { ...onTranscript(transcriptId), body: { email } });

const share = (as: string | null, transcriptId: string, email: string) => answer(sendEmail(as, transcriptId, email));

const readable = async (id: string) =>
  (await sys.client("alice").GET("/v1/transcripts/{transcript_id}", onTranscript(id))).response.status === 200;

describe("GET /v1/config", () => {
  it("says e-mail is on and team chat off, whatever credentials come along", async () => {
    expect(await ok(sys.client(null).GET("/v1/config"))).toEqual({ zulip_enabled: false, email_enabled: true });
    const stale = await sys.clientWith({ token: "not-a-token" }).GET("/v1/config");
    expect([stale.response.status, stale.data]).toEqual([200, { zulip_enabled: false, email_enabled: true }]);
  });
});

describe("sharing a transcript by e-mail", () => {
  const publicId = randomUUID();
  const semiId = randomUUID();
  const privateId = randomUUID();
  beforeAll(async () => {
    await publishWholeTranscript(sys, endedTranscript(publicId, { user_id: "alice", share_mode: "public" }));
    await publishWholeTranscript(sys, endedTranscript(semiId, { user_id: "alice", share_mode: "semi-private", title: "Design <Review>" }));
    await publishWholeTranscript(sys, endedTranscript(privateId, { user_id: "alice", share_mode: "private" }));
    for (const id of [publicId, semiId, privateId]) await eventually(() => readable(id));
  });

  it("sends the reference's e-mail; a public transcript's includes the link", async () => {
    expect(await share("bob", publicId, "reader@example.com")).toEqual({ status: 200, body: { sent: 1 } });
    const [mail] = smtp.to("reader@example.com");
    expect(mail!.from).toBe("transcripts@scribe.example.com");
    expect(mail!.parsed.subject).toBe("Reflector: Weekly Standup");
    expect(mail!.parsed.text).toBe(
      "Reflector: Weekly Standup\n\nSummary:\nThe team met.\n\nTranscript:\n[00:00] Alice: Hello everyone.\n[00:05] Bob: Hi Alice.\n\n" +
        `View transcript: ${linkOf(publicId)}\n\nThis email was sent because you requested to receive the transcript from a meeting.`,
    );
    const html = String(mail!.parsed.html);
    expect(html).toContain(`href="${linkOf(publicId)}"`);
    expect(html).toContain("View Transcript");
    expect(html).toContain("<strong>Alice:</strong> Hello everyone.");
  });

  it("a transcript that is not public is sent without the link; the title is escaped in HTML", async () => {
    expect(await share("bob", semiId, "colleague@example.com")).toEqual({ status: 200, body: { sent: 1 } });
    const [mail] = smtp.to("colleague@example.com");
    expect(mail!.parsed.subject).toBe("Reflector: Design <Review>");
    expect(hasLink(mail!, semiId)).toBe(false);
    expect(String(mail!.parsed.html)).toContain("Design &lt;Review&gt;");
  });

  it("only what the caller may read: private → 403, unknown → 404, nothing sent", async () => {
    const before = smtp.mails.length;
    expect(await share("bob", privateId, "x@example.com")).toEqual({ status: 403, body: { detail: "Transcript access denied" } });
    expect(await share("alice", randomUUID(), "x@example.com")).toEqual({ status: 404, body: { detail: "Transcript not found" } });
    expect(smtp.mails.length).toBe(before);
  });

  it("needs a signed-in caller, even for a public transcript (no open relay)", async () => {
    const before = smtp.mails.length;
    expect(await share(null, publicId, "x@example.com")).toEqual({ status: 401, body: { detail: "Not authenticated" } });
    expect(smtp.mails.length).toBe(before);
  });

  it("sends one e-mail per recipient, up to EMAIL_SHARE_MAX_RECIPIENTS plain addresses", async () => {
    const id = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", share_mode: "public" }));
    await eventually(() => readable(id));
    expect(await share("carol", id, "one@example.com; two@example.com")).toEqual({ status: 200, body: { sent: 2 } });
    expect(smtp.to("one@example.com").map((m) => m.to)).toEqual([["one@example.com"]]);
    expect(smtp.to("two@example.com").map((m) => m.to)).toEqual([["two@example.com"]]);
    const before = smtp.mails.length;
    for (const bad of ["a@example.com, b@example.com, c@example.com, d@example.com", "Someone <x@example.com>", "not an address", ""]) {
      const refused = await share("carol", id, bad);
      expect(refused.status, bad).toBe(422);
      expect(issuesOf(refused.body)[0]!.loc).toEqual(["body", "email"]);
    }
    expect(smtp.mails.length).toBe(before);
  });

  it("limits e-mails per transcript and per user per hour: 429 with Retry-After", async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", share_mode: "public" }));
    for (const id of ids) await eventually(() => readable(id));
    const [shared, a, b, c] = ids as [string, string, string, string];
    // Per transcript (4 an hour), whoever sends.
    expect((await share("dora", shared, "r1@example.com, r2@example.com")).body).toEqual({ sent: 2 });
    expect((await share("erin", shared, "r3@example.com, r4@example.com")).body).toEqual({ sent: 2 });
    const perTranscript = (await sendEmail("finn", shared, "r5@example.com")).response;
    expect(perTranscript.status).toBe(429);
    expect(Number(perTranscript.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(smtp.to("r5@example.com")).toEqual([]);
    // Per user (6 an hour), whatever the transcript.
    expect((await share("gus", a, "g1@example.com, g2@example.com, g3@example.com")).body).toEqual({ sent: 3 });
    expect((await share("gus", b, "g4@example.com, g5@example.com, g6@example.com")).body).toEqual({ sent: 3 });
    const perUser = (await sendEmail("gus", c, "g7@example.com")).response;
    expect(perUser.status).toBe(429);
    expect(perUser.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(smtp.to("g7@example.com")).toEqual([]);
  });

  it("a refused address answers sent: 0 and is recorded", async () => {
    smtp.rejectRecipients.add("nobody@example.com");
    expect(await share("alice", publicId, "nobody@example.com")).toEqual({ status: 200, body: { sent: 0 } });
    const [row] = await db<{ id: string; status: string; last_status_code: number }[]>`select id, status, last_status_code from delivery
      where kind = 'share' and target->>'to' = 'nobody@example.com'`;
    expect([row!.status, row!.last_status_code]).toEqual(["failed", 550]);
    expect((await attempts(db, row!.id)).map((a) => a.outcome)).toEqual(["failed"]);
  });
});

describe("e-mails after processing", () => {
  it("meeting recipients get it with or without the link as they asked, the room's address with it, once", async () => {
    const r = await room({ email_transcript_to: "owner@example.com" });
    const meetingId = `m-${randomUUID()}`;
    await publish(sys.prefix, "meeting.created", meetingState(meetingId, { ...r, owner: "alice" }));
    await publish(sys.prefix, "meeting.email_recipient.added", {
      meeting: meetingState(
        meetingId,
        { ...r, owner: "alice" },
        {
          version: 3,
          email_recipients: [
            { email: "signed-in@example.com", include_link: true },
            { email: "guest@example.com", include_link: false },
            { email: "owner@example.com", include_link: false },
          ],
        },
      ),
      recipient: { email: "owner@example.com", include_link: false },
    });
    await notifierCaughtUp(sys, "MEETINGS");
    const id = randomUUID();
    await publishWholeTranscript(
      sys,
      endedTranscript(id, { user_id: "alice", room_id: r.id, meeting_id: meetingId, share_mode: "semi-private" }),
    );
    const rows = await deliveriesOf(db, id, 3, "email");
    expect(rows.map((d) => [d.kind, (d.target as { to: string }).to, (d.target as { include_link: boolean }).include_link]).sort()).toEqual(
      [
        ["meeting_recipient", "guest@example.com", false],
        ["meeting_recipient", "signed-in@example.com", true],
        ["room_recipient", "owner@example.com", true],
      ],
    );
    await deliverDue();
    for (const to of ["guest@example.com", "owner@example.com", "signed-in@example.com"]) expect(smtp.to(to)).toHaveLength(1);
    expect(hasLink(smtp.to("signed-in@example.com")[0]!, id)).toBe(true);
    expect(hasLink(smtp.to("guest@example.com")[0]!, id)).toBe(false);
    expect(hasLink(smtp.to("owner@example.com")[0]!, id)).toBe(true);
    expect(smtp.to("guest@example.com")[0]!.parsed.text).toContain("[00:05] Bob: Hi Alice.");

    // Reprocessing completes again: nobody is mailed twice.
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: r.id, meeting_id: meetingId, version: 9 }), "run-2");
    await eventually(async () => (await db`select 1 from delivery where transcript_id = ${id} and channel = 'email'`).length === 3);
    await deliverDue();
    expect(smtp.to("guest@example.com")).toHaveLength(1);
  });

  it("the room's address alone: mailed with the link, the transcript stays as shared as it was", async () => {
    const r = await room({ email_transcript_to: "room-only@example.com" });
    const id = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: r.id }));
    await deliveriesOf(db, id, 1, "email");
    await deliverDue();
    expect(smtp.to("room-only@example.com")).toHaveLength(1);
    expect(hasLink(smtp.to("room-only@example.com")[0]!, id)).toBe(true);
    const requests = (await streamEvents(sys.prefix, "NOTIFICATIONS")).filter((e) => e.data.transcript_id === id);
    expect(requests).toEqual([]);
  });

  it("a temporary SMTP failure is retried on the schedule and recorded; a refused address is not retried", async () => {
    const r = await room({ email_transcript_to: "flaky@example.com" });
    const id = randomUUID();
    smtp.failNext(1);
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: r.id }));
    const [d] = await deliveriesOf(db, id, 1, "email");
    const t0 = new Date();
    await deliverDue({ now: t0 });
    const after = await deliveryNow(db, d!.id);
    expect([after.status, after.last_status_code, after.next_attempt_at!.getTime() - t0.getTime()]).toEqual(["pending", 451, 30_000]);
    await deliverDue({ now: after.next_attempt_at! });
    expect((await deliveryNow(db, d!.id)).status).toBe("delivered");
    expect((await attempts(db, d!.id)).map((a) => [a.outcome, a.status_code])).toEqual([
      ["retry", 451],
      ["delivered", null],
    ]);
    expect(smtp.to("flaky@example.com")).toHaveLength(1);

    smtp.rejectRecipients.add("gone@example.com");
    const r2 = await room({ email_transcript_to: "gone@example.com" });
    const id2 = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id2, { user_id: "alice", room_id: r2.id }));
    const [d2] = await deliveriesOf(db, id2, 1, "email");
    await deliverDue();
    expect((await attempts(db, d2!.id)).map((a) => [a.outcome, a.status_code])).toEqual([["failed", 550]]);
  });
});
