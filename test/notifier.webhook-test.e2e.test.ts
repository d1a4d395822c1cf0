// POST /v1/rooms/{room_id}/webhook/test through the API against real receivers, and the SSRF guard
// on webhook URLs: a system with ALLOW_PRIVATE_URLS (receivers on loopback) and one without it.
import { randomUUID } from "node:crypto";
import { ok, type Schemas } from "@scribe/client";
import type { Sql } from "@scribe/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deliveriesOf,
  deliveryNow,
  attempts,
  endedTranscript,
  notifierCaughtUp,
  notifierDb,
  notifierHooks,
  publishCompleted,
} from "./support/notifier";
import { answer, onRoom } from "./support/api";
import { startSystem, type TestSystem } from "./support/system";
import { WebhookReceiver } from "./support/webhook-receiver";

let open: TestSystem;
let strict: TestSystem;
let strictDb: Sql;
let openDb: Sql;

const env = { NOTIFIER_DISPATCH_INTERVAL_MS: "0", WEBHOOK_TIMEOUT_MS: "2000", WEBHOOK_TEST_TIMEOUT_MS: "500" };
beforeAll(async () => {
  [open, strict] = await Promise.all([
    startSystem({ label: "hooktest", services: ["rooms", "notifier", "gateway"], env: { ...env, ALLOW_PRIVATE_URLS: "true" } }),
    startSystem({ label: "hookssrf", services: ["rooms", "notifier", "gateway"], env: { ...env, ALLOW_PRIVATE_URLS: "false" } }),
  ]);
  openDb = notifierDb(open);
  strictDb = notifierDb(strict);
});
afterAll(async () => {
  await openDb?.end();
  await strictDb?.end();
  await Promise.all([open?.stop(), strict?.stop()]);
});

async function createRoom(sys: TestSystem, body: Omit<Schemas["CreateRoom"], "name">): Promise<{ id: string; secret: string | null }> {
  const alice = sys.client("alice");
  const { id } = await ok(alice.POST("/v1/rooms", { body: { name: `t-${randomUUID().slice(0, 8)}`, ...body } }));
  const details = await ok(alice.GET("/v1/rooms/{room_id}", onRoom(id)));
  return { id, secret: details.webhook_secret ?? null };
}

async function testHook(sys: TestSystem, roomId: string, as: string | null = "alice") {
  const { status, body } = await answer(sys.client(as).POST("/v1/rooms/{room_id}/webhook/test", onRoom(roomId)));
  return { status, body: body as Partial<Schemas["WebhookTestResult"]> & { detail?: string } };
}

describe("the webhook test operation", () => {
  let secret: string | null = null;
  let receiver: WebhookReceiver;
  let room: { id: string; secret: string | null };
  beforeAll(async () => {
    receiver = await new WebhookReceiver(() => secret).up();
    room = await createRoom(open, { webhook_url: receiver.url, is_shared: true });
    secret = room.secret;
  });
  afterAll(() => receiver.down());

  it("sends the signed test event and answers success with the receiver's answer", async () => {
    receiver.script({ status: 200, body: "thanks" });
    const before = receiver.received.length;
    const { status, body } = await testHook(open, room.id);
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, message: "Webhook test successful", error: "", status_code: 200, response_preview: "thanks" });
    const got = receiver.received[before]!;
    expect(got.signatureValid).toBe(true);
    expect(got.headers).toMatchObject({ "x-webhook-event": "test", "x-webhook-retry": "0", "user-agent": "Reflector-Webhook/1.0" });
    expect(got.body).toMatchObject({ event: "test", message: "This is a test webhook from Reflector", room: { id: room.id } });
    expect(got.body.event_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("a failure with a plain body: the message holds the status code and the body's start", async () => {
    receiver.script({ status: 500, body: "Internal receiver error" });
    const { body } = await testHook(open, room.id);
    expect(body).toEqual({
      success: false,
      message: "Webhook test failed (Status: 500): Internal receiver error",
      error: "",
      status_code: 500,
      response_preview: "Internal receiver error",
    });
  });

  it("a failure with a JSON body: the message holds the status code and the JSON's message", async () => {
    const json = JSON.stringify({ code: 404, message: 'The requested webhook "scribe" is not registered.' });
    receiver.script({ status: 404, body: json, contentType: "application/json" });
    const { body } = await testHook(open, room.id);
    expect(body).toEqual({
      success: false,
      message: 'Webhook test failed (Status: 404): The requested webhook "scribe" is not registered.',
      error: "",
      status_code: 404,
      response_preview: json,
    });
  });

  it("a receiver that does not answer in time: timed out", async () => {
    receiver.script({ status: 200, hang: true });
    const { body } = await testHook(open, room.id);
    expect(body).toMatchObject({
      success: false,
      error: "Webhook request timed out (0.5 seconds)",
      status_code: null,
      response_preview: null,
    });
  });

  it("nobody listening: could not connect", async () => {
    const gone = await new WebhookReceiver(() => null).up();
    await gone.down();
    const r = await createRoom(open, { webhook_url: gone.url });
    const { body } = await testHook(open, r.id);
    expect(body.success).toBe(false);
    expect(body.error).toMatch(/^Could not connect to webhook URL: .*ECONNREFUSED/);
  });

  it("no webhook URL: says so without sending anything", async () => {
    const r = await createRoom(open, {});
    expect((await testHook(open, r.id)).body).toEqual({
      success: false,
      message: "",
      error: "No webhook URL configured",
      status_code: null,
      response_preview: null,
    });
  });

  it("tests the URL just saved (the room comes from the rooms service, not a copy)", async () => {
    const other = await new WebhookReceiver(() => null).up();
    const r = await createRoom(open, { webhook_url: receiver.url });
    expect(
      (await open.client("alice").PATCH("/v1/rooms/{room_id}", { ...onRoom(r.id), body: { webhook_url: other.url } })).response.status,
    ).toBe(200);
    expect((await testHook(open, r.id)).body.success).toBe(true);
    expect(other.received).toHaveLength(1);
    await other.down();
  });

  it("only the owner may test: others 403 (even in a shared room), anonymous 401, unknown room 404", async () => {
    expect(await testHook(open, room.id, "bob")).toEqual({ status: 403, body: { detail: "Not authorized to test this room's webhook" } });
    const priv = await createRoom(open, { webhook_url: receiver.url });
    expect(await testHook(open, priv.id, "bob")).toEqual({ status: 403, body: { detail: "Not authorized to test this room's webhook" } });
    expect((await testHook(open, room.id, null)).status).toBe(401);
    expect(await testHook(open, randomUUID())).toEqual({ status: 404, body: { detail: "Room not found" } });
  });
});

describe("SSRF guard on webhook URLs", () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await new WebhookReceiver(() => null).up();
  });
  afterAll(() => receiver.down());

  it.each([
    ["a loopback literal", () => receiver.url, /127\.0\.0\.1 is a loopback address/],
    [
      "a name resolving to loopback",
      () => `http://localhost:${receiver.port}/hook`,
      /localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
    ],
    ["a private literal", () => "http://10.20.30.40/hook", /10\.20\.30\.40 is a private address/],
    [
      "a link-local literal (cloud metadata)",
      () => "http://169.254.169.254/latest/meta-data/",
      /169\.254\.169\.254 is a link-local address/,
    ],
    ["an IPv6 loopback literal", () => `http://[::1]:${receiver.port}/hook`, /::1 is a loopback address/],
  ])("refuses %s without ALLOW_PRIVATE_URLS, in the test and in deliveries", async (_what, url, message) => {
    const room = await createRoom(strict, { webhook_url: url() });
    const { body } = await testHook(strict, room.id);
    expect(body.success).toBe(false);
    expect(body.error).toMatch(/^Could not connect to webhook URL: /);
    expect(body.error).toMatch(message);

    await notifierCaughtUp(strict, "ROOMS");
    const transcriptId = randomUUID();
    await publishCompleted(strict, endedTranscript(transcriptId, { room_id: room.id, user_id: "alice" }), "run-1");
    const [delivery] = await deliveriesOf(strictDb, transcriptId);
    await notifierHooks(strict).deliverDue();
    // Refused for good: waiting would not make the address allowed.
    const d = await deliveryNow(strictDb, delivery!.id);
    expect(d.status).toBe("failed");
    expect(d.last_error).toMatch(/^blocked: /);
    expect(receiver.received).toHaveLength(0);
  });

  it("never follows a redirect, even where private addresses are allowed", async () => {
    const target = await new WebhookReceiver(() => null).up();
    const redirector = await new WebhookReceiver(() => null).up();
    // The redirect points at the other local receiver; it must never be called.
    redirector.always({ status: 307, body: "", location: target.url });
    const room = await createRoom(open, { webhook_url: redirector.url });
    const { body } = await testHook(open, room.id);
    expect(body).toMatchObject({ success: false, status_code: 307, message: "Webhook test failed (Status: 307)" });

    await notifierCaughtUp(open, "ROOMS");
    const transcriptId = randomUUID();
    await publishCompleted(open, endedTranscript(transcriptId, { room_id: room.id, user_id: "alice" }), "run-1");
    const [delivery] = await deliveriesOf(openDb, transcriptId);
    await notifierHooks(open).deliverDue();
    expect((await attempts(openDb, delivery!.id)).map((a) => [a.status_code, a.outcome])).toEqual([[307, "retry"]]);
    expect(redirector.received).toHaveLength(2);
    expect(target.received).toHaveLength(0);
    await Promise.all([target.down(), redirector.down()]);
  });
});
