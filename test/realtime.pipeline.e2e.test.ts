// Realtime sockets fed by the real file pipeline: an upload is processed while a transcript socket
// and the owner's user socket are open; a socket opened afterwards replays the stored log; after a
// reprocessing, the replay holds the latest run's entries only (api.md §2.18, behaviour §2.3, §5.6).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onTranscript } from "./support/api";
import { speechMp3, uploadWhole } from "./support/media";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter } from "./support/transcripts";
import { mustOpen, type OpenSocket, type WsMessage } from "./support/websocket";

let sys: TestSystem;
let alice: ScribeClient;
let storageRoot: string;
let bearer: string[];
let tw: TranscriptWriter;

beforeAll(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-rtpipe-"));
  sys = await startSystem({
    label: "rtpipeline",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: storageRoot },
  });
  alice = sys.client("alice");
  bearer = ["bearer", await sys.token("alice")];
  tw = await TranscriptWriter.connect(sys.prefix);
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
  await rm(storageRoot, { recursive: true, force: true });
});

const names = (ms: WsMessage[]) => ms.map((m) => m.event);
const ended = (m: WsMessage) => m.event === "STATUS" && m.data.value === "ended";
const RUN_MS = 180_000;

/**
 * Opens a socket and answers what it replays: a marker entry published once it is open arrives
 * after the replay, so everything before the marker is the replay, complete.
 */
async function replayOf(id: string, live: OpenSocket): Promise<WsMessage[]> {
  const later = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer);
  const marker = `marker-${Math.random()}`;
  await tw.publish("transcript.event.appended", { transcript_id: id, user_id: "alice", run_id: null, event: "WAVEFORM", data: { marker } });
  const isMarker = (m: WsMessage) => m.data.marker === marker;
  const got = await later.until(isMarker);
  // The live socket has it too before the test goes on, so later comparisons know where it is.
  await live.until(isMarker);
  later.close();
  return got.slice(0, -1);
}
const withoutMarkers = (ms: WsMessage[]) => ms.filter((m) => m.data.marker === undefined);

describe("a processed upload on the sockets", () => {
  let id: string;
  let live: OpenSocket;
  let user: OpenSocket;

  beforeAll(async () => {
    user = await mustOpen(sys.baseUrl, "/v1/events", bearer);
    id = (await ok(alice.POST("/v1/transcripts", { body: { name: "Realtime upload" } }))).id;
    live = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer);
    await ok(uploadWhole(alice, id, speechMp3(), "meeting.mp3"));
    await eventually(() => live.messages.some(ended), { timeoutMs: RUN_MS, message: "STATUS ended on the transcript socket" });
  }, RUN_MS + 20_000);
  afterAll(() => {
    live?.close();
    user?.close();
  });

  it("relays the run live: STATUS processing first, then results, STATUS ended", async () => {
    const got = live.messages;
    expect(got[0]).toEqual({ event: "STATUS", data: { value: "processing" } });
    expect(names(got)).toEqual(
      expect.arrayContaining(["DURATION", "WAVEFORM", "TOPIC", "FINAL_TITLE", "FINAL_LONG_SUMMARY", "FINAL_SHORT_SUMMARY"]),
    );
    expect(got.findIndex(ended)).toBe(got.length - 1);
    const t = await ok(alice.GET("/v1/transcripts/{transcript_id}", onTranscript(id)));
    expect(got.find((m) => m.event === "FINAL_TITLE")?.data.title).toBe(t.title);
  });

  it("mirrors STATUS, FINAL_TITLE and DURATION to the owner's user socket", async () => {
    const mine = await eventually(
      () => (user.messages.some((m) => m.event === "TRANSCRIPT_STATUS" && m.data.value === "ended") ? user.messages : null),
      {
        message: "TRANSCRIPT_STATUS ended",
      },
    );
    expect(mine[0]).toEqual({ event: "TRANSCRIPT_CREATED", data: { id } });
    expect(mine).toEqual(
      expect.arrayContaining([
        { event: "TRANSCRIPT_STATUS", data: { id, value: "processing" } },
        { event: "TRANSCRIPT_DURATION", data: { id, duration: expect.any(Number) } },
        { event: "TRANSCRIPT_FINAL_TITLE", data: { id, title: expect.any(String) } },
      ]),
    );
    expect(new Set(names(mine))).toEqual(
      new Set(["TRANSCRIPT_CREATED", "TRANSCRIPT_STATUS", "TRANSCRIPT_DURATION", "TRANSCRIPT_FINAL_TITLE"]),
    );
  });

  it("replays the stored log to a later socket: the live messages without TRANSCRIPT and STATUS", async () => {
    const expected = live.messages.filter((m) => m.event !== "TRANSCRIPT" && m.event !== "STATUS");
    expect(await replayOf(id, live)).toEqual(expected);
  });

  it(
    "replays only the latest run's entries after a reprocessing: its topics once, as the read model has them",
    async () => {
      const before = live.messages.length;
      expect(await ok(alice.POST("/v1/transcripts/{transcript_id}/process", onTranscript(id)))).toEqual({ status: "ok" });
      await eventually(() => live.messages.slice(before).some(ended), { timeoutMs: RUN_MS, message: "the second run's STATUS ended" });
      const replayed = await replayOf(id, live);
      // The earlier run's entries (and the marker logged after it) are gone with the reset.
      expect(replayed).toEqual(withoutMarkers(live.messages.slice(before)).filter((m) => m.event !== "TRANSCRIPT" && m.event !== "STATUS"));
      const topics = await ok(alice.GET("/v1/transcripts/{transcript_id}/topics", onTranscript(id)));
      expect(replayed.filter((m) => m.event === "TOPIC").map((m) => m.data.id)).toEqual(topics.map((t) => t.id));
    },
    RUN_MS + 20_000,
  );
});
