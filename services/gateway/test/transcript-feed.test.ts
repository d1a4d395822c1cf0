// Transcript feeds (transcript-feed.ts) against a real JetStream: sockets joining while entries are
// published get every entry once, in order — including when the shared live consumer lags behind the
// stream, so that entries up to a joiner's boundary are both in its replay and still to come live.
import { STREAMS, makeEvent } from "@scribe/contracts";
import { connectBus, createLogger, ensureStreams, type Bus } from "@scribe/kit";
import { eventually, testPrefix, TEST_NATS_URL } from "@scribe/kit/testing";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WsMessage } from "../src/realtime/protocol";
import { TranscriptFeeds } from "../src/realtime/transcript-feed";

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

/** Appends a FINAL_TITLE entry; resolves with its stream sequence once JetStream stored it. */
async function append(transcriptId: string, title: string): Promise<number> {
  const out = makeEvent(
    "transcript.event.appended",
    { transcript_id: transcriptId, user_id: null, run_id: null, event: "FINAL_TITLE", data: { title } },
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
    const feeds = new TranscriptFeeds(bus, log);
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
});
