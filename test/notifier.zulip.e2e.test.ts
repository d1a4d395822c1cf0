// Team chat through a local server following the Zulip API: a room's automatic report of each
// completed transcript (updated on reprocessing), the manual post, and the stream/topic directory.
import { randomUUID } from "node:crypto";
import { ok, type operations } from "@scribe/client";
import type { Sql } from "@scribe/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attempts,
  deliveriesOf,
  deliveryNow,
  endedTranscript,
  notifierCaughtUp,
  notifierDb,
  notifierHooks,
  publishWholeTranscript,
  type DeliverDue,
} from "./support/notifier";
import { answer, onTranscript } from "./support/api";
import { startSystem, type TestSystem } from "./support/system";
import { startZulipSimulator, type ZulipSimulator } from "@scribe/simulators";

let sys: TestSystem;
let zulip: ZulipSimulator;
let db: Sql;
let deliverDue: DeliverDue;

beforeAll(async () => {
  zulip = await startZulipSimulator();
  sys = await startSystem({
    label: "zulip",
    services: ["rooms", "projection", "notifier", "gateway"],
    env: {
      ZULIP_REALM: zulip.realm,
      ZULIP_BOT_EMAIL: zulip.botEmail,
      ZULIP_API_KEY: zulip.apiKey,
      UI_BASE_URL: "https://scribe.example.com",
      NOTIFIER_DISPATCH_INTERVAL_MS: "0",
    },
  });
  db = notifierDb(sys);
  deliverDue = notifierHooks(sys).deliverDue;
});
afterAll(async () => {
  await db?.end();
  await sys?.stop();
  await zulip?.close();
});

async function autoPostingRoom(): Promise<string> {
  const room = await ok(
    sys.client("alice").POST("/v1/rooms", {
      body: { name: `chat-${randomUUID().slice(0, 8)}`, zulip_auto_post: true, zulip_stream: "general", zulip_topic: "meetings" },
    }),
  );
  await notifierCaughtUp(sys, "ROOMS");
  return room.id;
}
const messagesAbout = (id: string) => [...zulip.messages.values()].filter((m) => m.content.includes(`/transcripts/${id})`));

describe("GET /v1/config and e-mail", () => {
  it("says team chat is on and e-mail off; sharing by e-mail answers that first", async () => {
    expect(await ok(sys.client(null).GET("/v1/config"))).toEqual({ zulip_enabled: true, email_enabled: false });
    const res = await sys
      .client("alice")
      .POST("/v1/transcripts/{transcript_id}/email", { ...onTranscript(randomUUID()), body: { email: "a@example.com" } });
    expect([res.response.status, res.error]).toEqual([400, { detail: "Email not configured" }]);
  });
});

describe("automatic reports", () => {
  it("posts a completed transcript to the room's stream and topic, and updates that message on reprocessing", async () => {
    const roomId = await autoPostingRoom();
    const id = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: roomId }));
    const [first] = await deliveriesOf(db, id, 1, "zulip");
    await deliverDue();
    expect((await deliveryNow(db, first!.id)).status).toBe("delivered");
    const [posted] = messagesAbout(id);
    expect(posted).toMatchObject({ stream: "general", topic: "meetings", edits: 0 });
    expect(posted!.content).toBe(
      `# Reflector – Weekly Standup\n\n**Date**: <time:${endedTranscriptCreatedAt(posted!.content)}>\n` +
        `**Link**: [scribe.example.com](https://scribe.example.com/transcripts/${id})\n**Duration**: 12:34\n\n` +
        "```spoiler Summary\nThe team met and planned the quarter.\n```\n\n```spoiler Topics\n1. [00:00] Introductions\n```\n\n-----\n",
    );

    await publishWholeTranscript(
      sys,
      endedTranscript(id, { user_id: "alice", room_id: roomId, version: 9, title: "Weekly Standup (reprocessed)" }),
      "run-2",
    );
    await deliveriesOf(db, id, 2, "zulip");
    await deliverDue();
    expect(messagesAbout(id)).toHaveLength(1);
    expect(zulip.messages.get(posted!.id)).toMatchObject({ edits: 1 });
    expect(zulip.messages.get(posted!.id)!.content).toMatch(/^# Reflector – Weekly Standup \(reprocessed\)/);
  });

  it("posts anew when the earlier message was deleted, and retries when Zulip is down", async () => {
    const roomId = await autoPostingRoom();
    const id = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: roomId }));
    await deliveriesOf(db, id, 1, "zulip");
    await deliverDue();
    const [posted] = messagesAbout(id);
    zulip.messages.delete(posted!.id);

    // Zulip fails the update and the new post of the first attempt; the next attempt finds the
    // message gone (update refused as "Invalid message(s)") and posts a new one.
    zulip.failNext(2, 502);
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: roomId, version: 9 }), "run-2");
    const [, second] = await deliveriesOf(db, id, 2, "zulip");
    const t0 = new Date();
    await deliverDue({ now: t0 });
    const waiting = await deliveryNow(db, second!.id);
    expect([waiting.status, waiting.last_status_code, waiting.next_attempt_at!.getTime() - t0.getTime()]).toEqual(["pending", 502, 30_000]);
    await deliverDue({ now: waiting.next_attempt_at! });
    expect((await attempts(db, second!.id)).map((a) => [a.outcome, a.status_code])).toEqual([
      ["retry", 502],
      ["delivered", 200],
    ]);
    const now = messagesAbout(id);
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(posted!.id);
  });

  it("a room without automatic posting reports nothing", async () => {
    const res = await sys
      .client("alice")
      .POST("/v1/rooms", { body: { name: `quiet-${randomUUID().slice(0, 8)}`, zulip_stream: "general" } });
    const roomId = res.data!.id;
    await notifierCaughtUp(sys, "ROOMS");
    const id = randomUUID();
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", room_id: roomId }));
    await notifierCaughtUp(sys, "TRANSCRIPTS");
    await deliverDue();
    expect(await db`select 1 from delivery where transcript_id = ${id}`).toHaveLength(0);
  });
});

describe("POST /v1/transcripts/{id}/zulip", () => {
  const id = randomUUID();
  const privateId = randomUUID();
  beforeAll(async () => {
    await publishWholeTranscript(sys, endedTranscript(id, { user_id: "alice", share_mode: "semi-private" }));
    await publishWholeTranscript(sys, endedTranscript(privateId, { user_id: "alice", share_mode: "private" }));
  });
  type ZulipQuery = operations["v1_transcript_post_to_zulip"]["parameters"]["query"];
  /** The query as a hand-written URL carries it (a missing or malformed value included). */
  const post = async (as: string | null, transcriptId: string, query = "stream=engineering&topic=standups&include_topics=true") => {
    const raw = Object.fromEntries(new URLSearchParams(query)) as unknown as ZulipQuery;
    return answer(
      sys.client(as).POST("/v1/transcripts/{transcript_id}/zulip", { params: { path: { transcript_id: transcriptId }, query: raw } }),
    );
  };

  it("posts for any reader, then updates its message (topic included, stream kept)", async () => {
    const res = await post("bob", id);
    expect([res.status, res.body]).toEqual([200, null]);
    const [m] = messagesAbout(id);
    expect(m).toMatchObject({ stream: "engineering", topic: "standups", edits: 0 });
    expect(m!.content).toContain("```spoiler Topics\n1. [00:00] Introductions\n```");

    expect((await post("alice", id, "stream=general&topic=recaps&include_topics=false")).status).toBe(200);
    expect(messagesAbout(id)).toHaveLength(1);
    expect(zulip.messages.get(m!.id)).toMatchObject({ stream: "engineering", topic: "recaps", edits: 1 });
    expect(zulip.messages.get(m!.id)!.content).not.toContain("spoiler Topics");
  });

  it("posts a new message when Zulip says the earlier one is gone; other failures are 502", async () => {
    const [m] = messagesAbout(id);
    zulip.messages.delete(m!.id);
    expect((await post("alice", id)).status).toBe(200);
    const [again] = messagesAbout(id);
    expect(again!.id).not.toBe(m!.id);

    zulip.failNext(1, 500);
    const failed = await post("alice", id);
    expect(failed.status).toBe(502);
    expect((failed.body as { detail: string }).detail).toMatch(/Zulip answered 500/);
    expect(messagesAbout(id)).toHaveLength(1);
  });

  it("needs a signed-in reader: anonymous 401, private to others 403, unknown 404, bad query 422", async () => {
    expect((await post(null, id)).status).toBe(401);
    expect([(await post("bob", privateId)).status, (await post("alice", randomUUID())).status]).toEqual([403, 404]);
    expect((await post("alice", id, "stream=general&topic=x")).status).toBe(422);
    expect((await post("alice", id, "stream=general&topic=x&include_topics=maybe")).status).toBe(422);
  });
});

describe("the directory", () => {
  it("lists streams and a stream's topics for signed-in callers; anonymous 403", async () => {
    const streams = await sys.client("alice").GET("/v1/zulip/streams");
    expect([streams.response.status, streams.data]).toEqual([
      200,
      [
        { stream_id: 1, name: "general" },
        { stream_id: 7, name: "engineering" },
      ],
    ]);
    const topicsOf = (as: string | null, streamId: number) =>
      sys.client(as).GET("/v1/zulip/streams/{stream_id}/topics", { params: { path: { stream_id: streamId } } });
    const topics = await topicsOf("bob", 1);
    expect([topics.response.status, topics.data]).toEqual([200, [{ name: "meetings" }, { name: "random" }]]);
    for (const anon of [await sys.client(null).GET("/v1/zulip/streams"), await topicsOf(null, 1)]) {
      expect([anon.response.status, anon.error]).toEqual([403, { detail: "Authentication required" }]);
    }
    expect((await topicsOf("alice", "abc" as unknown as number)).response.status).toBe(422);
    zulip.failNext(1, 503);
    expect((await sys.client("alice").GET("/v1/zulip/streams")).response.status).toBe(502);
  });
});

/** The `<time:…>` value: the transcript's created_at with a numeric offset (checked for shape). */
function endedTranscriptCreatedAt(content: string): string {
  const m = /<time:([^>]+)>/.exec(content);
  expect(m?.[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+00:00$/);
  return m![1]!;
}
