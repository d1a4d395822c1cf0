// Incoming platform webhooks through the gateway: signatures verified over what each platform signs,
// bad and replayed signatures refused, malformed bodies answered 4xx with nothing changed, unknown
// event types acknowledged without effect.
import { randomUUID } from "node:crypto";
import { ok, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signDaily, signWhereby, wherebyBody } from "@scribe/simulators";
import { roomWithMeetings, startPlatformSystem, type PlatformSystem } from "./support/platforms";
import { streamEvents } from "./support/system";

let sys: PlatformSystem;
let alice: ScribeClient;
let daily: { id: string; room_name: string };
let whereby: { id: string; room_name: string };

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "mtghooks" });
  alice = sys.client("alice");
  await roomWithMeetings(alice, { name: "hooks-a" });
  await roomWithMeetings(alice, { name: "hooks-b", platform: "whereby" });
  daily = await ok(alice.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: "hooks-a" } }, body: {} }));
  whereby = await ok(alice.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: "hooks-b" } }, body: {} }));
});
afterAll(async () => sys?.stop());

const participantEvents = async (meetingId: string) =>
  (await streamEvents(sys.prefix, "MEETINGS")).filter((e) => e.subject === meetingId && e.type.startsWith("meeting.participant."));
const numClients = async (roomName: string, id: string) =>
  (await ok(alice.GET("/v1/rooms/{room_name}/meetings/{meeting_id}", { params: { path: { room_name: roomName, meeting_id: id } } })))
    .num_clients;

const dailyJoined = (sessionId = randomUUID(), id = `pj-${randomUUID()}`) => ({
  version: "1.0.0",
  type: "participant.joined",
  id,
  payload: {
    room: daily.room_name,
    session_id: sessionId,
    user_id: sessionId,
    user_name: "Mallory",
    joined_at: Math.floor(Date.now() / 1000),
  },
  event_ts: Date.now() / 1000,
});

// Raw fetch on purpose: the signatures are over these exact bytes and headers, and the tests send
// malformed bodies the typed client would not.
async function rawDaily(rawBody: string, headers: Record<string, string>) {
  const res = await fetch(`${sys.baseUrl}/v1/daily/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: rawBody,
  });
  return { status: res.status, body: await res.json() };
}
const signedDaily = (rawBody: string, timestamp = String(Math.floor(Date.now() / 1000))) =>
  rawDaily(rawBody, { "x-webhook-timestamp": timestamp, "x-webhook-signature": signDaily(sys.daily.webhookSecret, timestamp, rawBody) });

describe("Daily webhook (POST /v1/daily/webhook)", () => {
  it("refuses a bad signature with 401 and changes nothing", async () => {
    const bad = await sys.daily.sendWebhook(dailyJoined(), { signature: "bm90IHRoZSBzaWduYXR1cmU=" });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body)).toEqual({ detail: "Invalid webhook signature" });
    const otherSecret = await rawDaily(JSON.stringify(dailyJoined()), {
      "x-webhook-timestamp": "1",
      "x-webhook-signature": signDaily(Buffer.from("x".repeat(32)).toString("base64"), "1", "{}"),
    });
    expect(otherSecret.status).toBe(401);
    const unsigned = await rawDaily(JSON.stringify(dailyJoined()), {});
    expect(unsigned.status).toBe(401);
    // A signed body changed in transit: the raw bytes are what is verified.
    const original = JSON.stringify(dailyJoined());
    const ts = String(Math.floor(Date.now() / 1000));
    const tampered = await rawDaily(original.replace("Mallory", "Mal1ory"), {
      "x-webhook-timestamp": ts,
      "x-webhook-signature": signDaily(sys.daily.webhookSecret, ts, original),
    });
    expect(tampered.status).toBe(401);
    expect(await participantEvents(daily.id)).toEqual([]);
    expect(await numClients("hooks-a", daily.id)).toBe(0);
  });

  it("refuses a correctly signed delivery older than the replay window (5 min)", async () => {
    const old = String(Math.floor(Date.now() / 1000) - 301);
    const res = await sys.daily.sendWebhook(dailyJoined(), { timestamp: old });
    expect(res.status).toBe(401);
    expect(await participantEvents(daily.id)).toEqual([]);
  });

  it("applies a delivery once: the same request replayed is refused, a redelivery with a new signature is acknowledged without a second effect", async () => {
    const body = dailyJoined();
    const first = await sys.daily.sendWebhook(body);
    expect(first.status).toBe(200);
    const replay = await rawDaily(first.rawBody, { "x-webhook-timestamp": first.timestamp, "x-webhook-signature": first.signature });
    expect(replay).toEqual({ status: 401, body: { detail: "Invalid webhook signature" } });
    const redelivery = await sys.daily.sendWebhook(body, { timestamp: String(Number(first.timestamp) + 1) });
    expect(redelivery.status).toBe(200);
    const events = await eventually(async () => {
      const evs = await participantEvents(daily.id);
      return evs.length > 0 ? evs : null;
    });
    expect(events).toHaveLength(1);
    expect(await numClients("hooks-a", daily.id)).toBe(1);
  });

  it("answers malformed bodies with 422 and changes nothing", async () => {
    const before = (await participantEvents(daily.id)).length;
    expect(await signedDaily("{not json")).toEqual({ status: 422, body: { detail: "Invalid JSON" } });
    expect(await signedDaily(JSON.stringify({ type: "participant.joined" }))).toEqual({
      status: 422,
      body: { detail: "Invalid event format" },
    });
    const badPayload = { ...dailyJoined(), payload: { room: daily.room_name } };
    expect(await signedDaily(JSON.stringify(badPayload))).toEqual({ status: 422, body: { detail: "Invalid event format" } });
    expect((await participantEvents(daily.id)).length).toBe(before);
  });

  it("acknowledges Daily's endpoint check, log-only and unknown event types without effect", async () => {
    const before = (await participantEvents(daily.id)).length;
    expect((await signedDaily('{"test":"test"}')).status).toBe(200);
    const unknown = { version: "1.0.0", type: "transcript.ready-to-download", id: randomUUID(), payload: { anything: true }, event_ts: 1 };
    expect(await signedDaily(JSON.stringify(unknown))).toEqual({ status: 200, body: { status: "ok" } });
    const started = {
      version: "1.0.0",
      type: "recording.started",
      id: randomUUID(),
      payload: { recording_id: "r", room_name: daily.room_name, start_ts: 1 },
      event_ts: 1,
    };
    expect((await signedDaily(JSON.stringify(started))).status).toBe(200);
    // Events for a meeting Scribe does not know are acknowledged too (Daily disables failing webhooks).
    const stranger = { ...dailyJoined(), payload: { ...dailyJoined().payload, room: "no-such-daily-room" } };
    expect((await signedDaily(JSON.stringify(stranger))).status).toBe(200);
    expect((await participantEvents(daily.id)).length).toBe(before);
  });
});

// Raw fetch on purpose, as rawDaily.
async function rawWhereby(rawBody: string, signatureHeader: string | null) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signatureHeader) headers["whereby-signature"] = signatureHeader;
  const res = await fetch(`${sys.baseUrl}/v1/whereby`, { method: "POST", headers, body: rawBody });
  return { status: res.status, body: await res.json() };
}
const wherebyJoined = () => ({
  apiVersion: "1.0",
  id: randomUUID(),
  createdAt: new Date().toISOString(),
  type: "room.client.joined",
  data: { meetingId: whereby.id, roomName: whereby.room_name, participantId: randomUUID(), displayName: "Zoë", numClients: 1 },
});
const signedWhereby = (body: string, t = String(Math.floor(Date.now() / 1000))) =>
  rawWhereby(body, `t=${t},v1=${signWhereby(sys.whereby.webhookSecret, t, body)}`);

describe("Whereby webhook (POST /v1/whereby)", () => {
  it("refuses bad, missing and expired (60 s) signatures with 401 and changes nothing", async () => {
    const body = wherebyBody(wherebyJoined());
    expect((await rawWhereby(body, "t=1,v1=00")).status).toBe(401);
    expect(await rawWhereby(body, null)).toEqual({ status: 401, body: { detail: "Invalid webhook signature" } });
    expect((await signedWhereby(body, String(Math.floor(Date.now() / 1000) - 61))).status).toBe(401);
    const t = String(Math.floor(Date.now() / 1000));
    const tampered = body.replace('"numClients":1', '"numClients":9');
    expect((await rawWhereby(tampered, `t=${t},v1=${signWhereby(sys.whereby.webhookSecret, t, body)}`)).status).toBe(401);
    expect(await participantEvents(whereby.id)).toEqual([]);
    expect(await numClients("hooks-b", whereby.id)).toBe(0);
  });

  it("verifies over the compact re-serialisation: a body sent with other whitespace still verifies", async () => {
    const event = wherebyJoined();
    const t = String(Math.floor(Date.now() / 1000));
    const v1 = signWhereby(sys.whereby.webhookSecret, t, wherebyBody(event));
    const res = await rawWhereby(JSON.stringify(event, null, 2), `t=${t},v1=${v1}`);
    expect(res).toEqual({ status: 200, body: { status: "ok" } });
    const events = await eventually(async () => {
      const evs = await participantEvents(whereby.id);
      return evs.length > 0 ? evs : null;
    });
    expect(events[0]!.data).toMatchObject({ name: "Zoë", user_id: null, platform: "whereby" });
    // The same request again is a replay.
    expect((await rawWhereby(JSON.stringify(event, null, 2), `t=${t},v1=${v1}`)).status).toBe(401);
  });

  it("answers malformed bodies with 422 and unknown meetings with 404, changing nothing", async () => {
    const before = (await participantEvents(whereby.id)).length;
    expect(await signedWhereby("{oops")).toEqual({ status: 422, body: { detail: "Invalid JSON" } });
    const shapeless = await signedWhereby(wherebyBody({ id: "x", type: "room.client.joined" }));
    expect(shapeless.status).toBe(422);
    expect((shapeless.body as { detail: { loc: string[] }[] }).detail[0]!.loc[0]).toBe("body");
    const badData = await signedWhereby(wherebyBody({ ...wherebyJoined(), data: { meetingId: whereby.id } }));
    expect(badData.status).toBe(422);
    const unknownMeeting = await signedWhereby(wherebyBody({ ...wherebyJoined(), data: { ...wherebyJoined().data, meetingId: "999" } }));
    expect(unknownMeeting).toEqual({ status: 404, body: { detail: "Meeting not found" } });
    expect((await participantEvents(whereby.id)).length).toBe(before);
  });

  it("acknowledges other event types without effect", async () => {
    const before = (await participantEvents(whereby.id)).length;
    const knocked = wherebyBody({ ...wherebyJoined(), type: "room.client.knocked", data: { meetingId: "999" } });
    expect(await signedWhereby(knocked)).toEqual({ status: 200, body: { status: "ok" } });
    expect((await participantEvents(whereby.id)).length).toBe(before);
  });
});
