// A webhook re-sent after the notifier died says it is a retry (issue 20): the notifier runs as a
// child process and is killed (SIGKILL) while the receiver holds its first attempt; the notifier
// started again records that attempt as interrupted and sends the next one with X-Webhook-Retry: 1
// and the same X-Webhook-Delivery-Id, which the receiver accepts.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { ok } from "@scribe/client";
import type { Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerCaughtUp } from "./support/media";
import { attempts, deliveriesOf, deliveryNow, endedTranscript, notifierDb, outboxesDrained, publishCompleted } from "./support/notifier";
import { startSystem, type TestSystem } from "./support/system";
import { WebhookReceiver } from "./support/webhook-receiver";
import { killServiceProcess, startServiceProcess } from "./support/service-process";

let sys: TestSystem;
let db: Sql;
let notifier: ChildProcess | null = null;
let secret: string | null = null;
const receiver = new WebhookReceiver(() => secret);

/** The notifier alone in its own process group, dispatching on its own (as deployed). */
const startNotifier = (): ChildProcess =>
  startServiceProcess("notifier", {
    ...sys.env,
    ALLOW_PRIVATE_URLS: "true",
    NOTIFIER_DISPATCH_INTERVAL_MS: "200",
    UI_BASE_URL: "https://scribe.example.com",
  });
const killNotifier = (): Promise<void> => killServiceProcess(notifier);

beforeAll(async () => {
  await receiver.up();
  sys = await startSystem({ label: "notifierkill", services: ["rooms", "gateway"] });
  db = notifierDb(sys);
}, 60_000);
afterAll(async () => {
  await killNotifier().catch(() => {});
  await db?.end({ timeout: 5 });
  await sys?.stop();
  await receiver.down();
});

describe("the notifier killed during a webhook attempt", () => {
  it("records the interrupted attempt and sends the next one marked as a retry", { timeout: 600_000 }, async () => {
    notifier = startNotifier();
    const api = sys.client("alice");
    const room = await ok(api.POST("/v1/rooms", { body: { name: `hooks-${randomUUID().slice(0, 8)}`, webhook_url: receiver.url } }));
    secret = (await ok(api.GET("/v1/rooms/{room_id}", { params: { path: { room_id: room.id } } }))).webhook_secret ?? null;
    await outboxesDrained(sys);
    await eventually(() => consumerCaughtUp(sys.prefix, "ROOMS", "notifier.rooms"), {
      timeoutMs: 240_000,
      message: "notifier has the room",
    });

    receiver.script({ status: 200, hang: true });
    const transcriptId = randomUUID();
    await publishCompleted(sys, endedTranscript(transcriptId, { room_id: room.id, user_id: "alice" }), "run-1");
    await eventually(() => receiver.received.length === 1, { timeoutMs: 30_000, message: "the first attempt reached the receiver" });
    await killNotifier();

    const [delivery] = await deliveriesOf(db, transcriptId);
    expect((await deliveryNow(db, delivery!.id)).lease_token).not.toBeNull();
    // The lease outlasts any attempt (over a minute by design); end it as the passing time would.
    await db`update delivery set lease_until = now() - interval '1 second' where id = ${delivery!.id}`;

    notifier = startNotifier();
    await eventually(async () => (await deliveryNow(db, delivery!.id)).status === "delivered", {
      // A restarted child compiles and migrates again: slow on a loaded machine.
      timeoutMs: 240_000,
      message: "delivered after the restart",
    });
    const [first, second] = receiver.received;
    expect(second!.headers["x-webhook-retry"]).toBe("1");
    expect(first!.headers["x-webhook-retry"]).toBe("0");
    expect(second!.headers["x-webhook-delivery-id"]).toBe(first!.headers["x-webhook-delivery-id"]);
    expect(second!.signatureValid).toBe(true);
    expect(receiver.received).toHaveLength(2);

    const record = await attempts(db, delivery!.id);
    expect(record.map((a) => [a.attempt, a.outcome])).toEqual([
      [0, "interrupted"],
      [1, "delivered"],
    ]);
    expect(record[0]!.error).toMatch(/^interrupted: the notifier stopped during this attempt/);
    expect((await deliveryNow(db, delivery!.id)).attempts).toBe(2);
  });
});
