// Transcript feeds (transcript-feed.ts) against a real JetStream: sockets joining while entries are
// published get every entry once, in order — including when the shared live consumer lags behind the
// stream, so that entries up to a joiner's boundary are both in its replay and still to come live.
// And no socket hears an entry before the read model holds the transcript version it carries
// (read-model-gate.ts): a client that hears "ended" and then reads the transcript finds it ended.
import { STREAMS, makeEvent } from "@scribe/contracts";
import { connectBus, createLogger, ensureStreams, type Bus } from "@scribe/kit";
import { eventually, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WsMessage } from "../src/realtime/protocol";
import { ReadModelGate } from "../src/realtime/read-model-gate";
import { TranscriptFeeds } from "../src/realtime/transcript-feed";
import { UserHub } from "../src/realtime/user-hub";

const log = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
let bus: Bus;
beforeAll(async () => {
  bus = await connectBus({ url: TEST_NATS_URL, prefix: testPrefix("feed"), name: "test-feed" });
  await ensureStreams(bus);
});
afterAll(async () => {
  for (const s of Object.keys(STREAMS)) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
  await bus.close();
});

/**
 * A read model whose transcript versions the test moves on: `awaitReadModel` answers once the version is
 * applied, or after the wait with what it holds (as projection.await_version does).
 */
function scriptedReadModel() {
  const held = new Map<string, number>();
  const waiting = new Set<{ id: string; version: number; done: () => void }>();
  const asked: Array<[string, number]> = [];
  return {
    asked,
    apply(id: string, version: number) {
      held.set(id, version);
      for (const w of [...waiting]) if (w.id === id && w.version <= version) w.done();
    },
    awaitReadModel: (id: string, version: number, timeoutMs: number): Promise<number | null> => {
      asked.push([id, version]);
      if ((held.get(id) ?? 0) >= version) return Promise.resolve(held.get(id)!);
      return new Promise((resolve) => {
        const w = { id, version, done: () => finish() };
        const timer = setTimeout(() => finish(), timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiting.delete(w);
          resolve(held.get(id) ?? null);
        };
        waiting.add(w);
      });
    },
  };
}

/** A gate over a read model that already holds everything (the feed tests that are not about it). */
const openGate = () => new ReadModelGate(async (_id, version) => version, log);

/** Appends a FINAL_TITLE entry (or `event`/`userId`, logged at `version`); resolves with its stream sequence once JetStream stored it. */
async function append(
  transcriptId: string,
  title: string,
  opts: { version?: number; event?: "FINAL_TITLE" | "STATUS"; userId?: string } = {},
): Promise<number> {
  const { event = "FINAL_TITLE", userId = null } = opts;
  const data = event === "STATUS" ? { value: title } : { title };
  const out = makeEvent(
    "transcript.event.appended",
    { transcript_id: transcriptId, user_id: userId, run_id: null, event, data, version: opts.version },
    { source: "test", time: new Date() },
  );
  return (await bus.js.publish(bus.subject(out.subject), JSON.stringify(out.event), { msgID: out.event.id })).seq;
}

function socket() {
  const received: WsMessage[] = [];
  const failures: unknown[] = [];
  return { received, failures, listener: { send: (m: WsMessage) => void received.push(m), fail: (e: unknown) => void failures.push(e) } };
}

describe("transcript feeds", () => {
  it("hands each socket every entry once and in order, when sockets join right after a publish the feed has not read yet", async () => {
    const feeds = new TranscriptFeeds(bus, log, openGate());
    const id = randomUUID();
    const first = socket();
    const leaves = [feeds.join(id, (await bus.jsm.streams.info(bus.stream("TRANSCRIPTS"))).state.last_seq, first.listener)];
    const sockets = [first];
    const total = 30;
    for (let i = 0; i < total; i++) {
      const seq = await append(id, `title ${i}`);
      // Accepted "now": the stream's last sequence is this entry's, which the shared feed is still
      // to deliver — so the joiner's replay reads it and the feed hands it again.
      if (i % 3 === 0) {
        const s = socket();
        sockets.push(s);
        leaves.push(feeds.join(id, seq, s.listener));
      }
    }
    const expected = Array.from({ length: total }, (_, i) => ({ event: "FINAL_TITLE", data: { title: `title ${i}` } }));
    await eventually(async () => sockets.every((s) => s.received.length >= total), { message: "every socket has every entry" });
    await append(id, "last");
    await eventually(async () => sockets.every((s) => s.received.at(-1)?.data.title === "last"), { message: "the last entry everywhere" });
    for (const s of sockets) {
      expect(s.failures).toEqual([]);
      expect(s.received).toEqual([...expected, { event: "FINAL_TITLE", data: { title: "last" } }]);
    }
    for (const leave of leaves) leave();
  });

  it("hands an entry on only once the read model holds its version, in order; a joiner's replay waits too", async () => {
    const readModel = scriptedReadModel();
    const feeds = new TranscriptFeeds(bus, log, new ReadModelGate(readModel.awaitReadModel, log, 30_000));
    const id = randomUUID();
    readModel.apply(id, 3);
    const early = socket();
    const leaveEarly = feeds.join(id, (await bus.jsm.streams.info(bus.stream("TRANSCRIPTS"))).state.last_seq, early.listener);
    await append(id, "held", { version: 3 });
    await eventually(async () => early.received.length === 1, { message: "an entry the read model holds goes out" });
    await append(id, "processing", { version: 4, event: "STATUS" });
    // Same version as the one before it: it must wait behind it, not overtake it.
    const lastSeq = await append(id, "Weekly", { version: 4 });
    await eventually(async () => readModel.asked.some(([, v]) => v === 4), { message: "the feed asks for version 4" });
    const late = socket();
    const leaveLate = feeds.join(id, lastSeq, late.listener);
    await new Promise((r) => setTimeout(r, 300));
    expect(early.received.map((m) => m.event)).toEqual(["FINAL_TITLE"]);
    expect(late.received).toEqual([]);
    readModel.apply(id, 4);
    const all = [
      { event: "FINAL_TITLE", data: { title: "held" } },
      { event: "STATUS", data: { value: "processing" } },
      { event: "FINAL_TITLE", data: { title: "Weekly" } },
    ];
    // Stored STATUS entries are not replayed (§2.3): the joiner replays the other two.
    const replayed = all.filter((m) => m.event !== "STATUS");
    await eventually(async () => early.received.length === 3 && late.received.length === 2, { message: "both sockets have all" });
    expect(early.received).toEqual(all);
    expect(late.received).toEqual(replayed);
    leaveEarly();
    leaveLate();
  });

  it("relays anyway once the wait is over when the read model stays behind (down or far behind)", async () => {
    const readModel = scriptedReadModel();
    const feeds = new TranscriptFeeds(bus, log, new ReadModelGate(readModel.awaitReadModel, log, 200));
    const id = randomUUID();
    const s = socket();
    const leave = feeds.join(id, (await bus.jsm.streams.info(bus.stream("TRANSCRIPTS"))).state.last_seq, s.listener);
    await append(id, "ended", { version: 9, event: "STATUS" });
    await append(id, "Weekly", { version: 9 });
    await eventually(async () => s.received.length === 2, { message: "relayed after the wait" });
    // Waited for once: the second entry of the same version did not ask again.
    expect(readModel.asked).toEqual([[id, 9]]);
    leave();
  });
});

describe("user sockets", () => {
  it("announce a status change to the owner only once the read model holds it", async () => {
    const readModel = scriptedReadModel();
    const hub = new UserHub(bus, log, new ReadModelGate(readModel.awaitReadModel, log, 30_000));
    await hub.start();
    const id = randomUUID();
    const received: WsMessage[] = [];
    const remove = hub.add("alice", (m) => void received.push(m));
    await append(id, "ended", { version: 7, event: "STATUS", userId: "alice" });
    await eventually(async () => readModel.asked.length === 1, { message: "the hub asks the read model" });
    expect(received).toEqual([]);
    readModel.apply(id, 7);
    await eventually(async () => received.length === 1, { message: "announced once held" });
    expect(received).toEqual([{ event: "TRANSCRIPT_STATUS", data: { value: "ended", id } }]);
    remove();
    hub.stop();
  });
});
