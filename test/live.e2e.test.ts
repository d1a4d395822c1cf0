// Live recording from a WebRTC peer (api.md §2.14 record/webrtc, behaviour §10): a werift peer
// streams synthesised speech as Opus in real time; the transcript socket shows `recording`, the
// duration growing and the words as they are spoken, then `processing` and `ended`, and the finished
// transcript holds what was said. A service killed mid-stream loses nothing it stored: the session
// is recovered and finished from the stored audio. Locked transcripts and bad offers are refused.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vocabularyShare } from "@scribe/ai";
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { liveDictation, synthesizeMeeting } from "@scribe/simulators";
import type { LiveRecorder } from "@scribe/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectLivePeer, opusPacketsOf } from "./support/live-peer";
import { answer, onTranscript } from "./support/api";
import { startSystem, type TestSystem } from "./support/system";
import { mustOpen, type OpenSocket, type WsMessage } from "./support/websocket";

let sys: TestSystem;
let alice: ScribeClient;
let bearer: string[];
let storageRoot: string;
let packets: Buffer[];
let said: string;
let live: LiveRecorder;

const RUN_MS = 240_000;
const LEASE_SECONDS = 30;

beforeAll(async () => {
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-live-"));
  sys = await startSystem({
    label: "live",
    services: ["rooms", "recordings", "projection", "transcription", "gateway"],
    env: {
      STORAGE_LOCAL_ROOT: storageRoot,
      LIVE_RECOVERY_INTERVAL_MS: "0",
      LIVE_SESSION_LEASE_SECONDS: String(LEASE_SECONDS),
      // The peers here never pause sending except where a test means it.
      LIVE_IDLE_TIMEOUT_SECONDS: "4",
      LIVE_SEGMENT_SECONDS: "3",
    },
  });
  alice = sys.client("alice");
  bearer = ["bearer", await sys.token("alice")];
  const fixture = await synthesizeMeeting(liveDictation);
  packets = await opusPacketsOf(fixture.mixPath);
  said = fixture.truth.words.join(" ");
  live = sys.process.services.find((s) => s.name === "transcription")!.exports.live as LiveRecorder;
}, 120_000);
afterAll(async () => {
  await sys?.stop();
  await rm(storageRoot, { recursive: true, force: true });
});

const read = (id: string) => ok(alice.GET("/v1/transcripts/{transcript_id}", onTranscript(id)));
const status = (value: string) => (m: WsMessage) => m.event === "STATUS" && m.data.value === value;
const textOf = (ms: WsMessage[]) =>
  ms
    .filter((m) => m.event === "TRANSCRIPT")
    .map((m) => m.data.text as string)
    .join(" ");

async function newTranscript(name: string): Promise<string> {
  return (await ok(alice.POST("/v1/transcripts", { body: { name } }))).id;
}

/**
 * The transcript once the read model has it ended. The socket's STATUS "ended" can arrive before the
 * read model applied the state change that came with it: the gateway does not yet know the version
 * an event-log entry stands for, so a read right after it may still answer "processing".
 */
const endedTranscript = (id: string) =>
  eventually(
    async () => {
      const t = await ok(
        alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format: "text" } } }),
      );
      return t.status === "ended" ? t : null;
    },
    { message: "the read model has the transcript ended" },
  );

describe("a live recording from a WebRTC peer", () => {
  let id: string;
  let socket: OpenSocket;
  let beforeStop: WsMessage[];

  beforeAll(async () => {
    id = await newTranscript("Live dictation");
    socket = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer);
    const peer = await connectLivePeer(alice, id);
    await peer.play(packets);
    beforeStop = [...socket.messages];
    peer.stop();
    await eventually(() => socket.messages.some(status("ended")), { timeoutMs: RUN_MS, message: "STATUS ended on the transcript socket" });
    await peer.close();
  }, RUN_MS + 60_000);
  afterAll(() => socket?.close());

  it("announces recording, the growing duration and the words while they are spoken", () => {
    expect(beforeStop[0]).toEqual({ event: "STATUS", data: { value: "recording" } });
    const durations = beforeStop.filter((m) => m.event === "DURATION").map((m) => m.data.duration as number);
    expect(durations.length).toBeGreaterThanOrEqual(3);
    expect(durations).toEqual([...durations].sort((a, b) => a - b));
    // Live: words arrive while the peer is still sending, not only once it stopped.
    expect(beforeStop.filter((m) => m.event === "TRANSCRIPT").length, JSON.stringify(beforeStop)).toBeGreaterThanOrEqual(1);
  });

  it("announces every utterance as TRANSCRIPT lines before processing starts", () => {
    const recording = socket.messages.slice(0, socket.messages.findIndex(status("processing")));
    const lines = recording.filter((m) => m.event === "TRANSCRIPT");
    expect(lines.length, JSON.stringify(recording)).toBeGreaterThanOrEqual(4);
    for (const l of lines) expect(l.data).toEqual({ text: expect.stringMatching(/\S/), translation: null });
    expect(vocabularyShare(said, textOf(recording)), textOf(recording)).toBeGreaterThanOrEqual(0.5);
  });

  it("then processes the recording: processing, the post-processing results, ended last", () => {
    const after = socket.messages.slice(socket.messages.findIndex(status("processing")));
    expect(after.length).toBeGreaterThan(1);
    expect(after.map((m) => m.event)).toEqual(expect.arrayContaining(["WAVEFORM", "TOPIC", "FINAL_TITLE", "FINAL_SHORT_SUMMARY"]));
    expect(after.findIndex(status("ended"))).toBe(after.length - 1);
  });

  it("ends with a transcript of what was said, its audio and duration", async () => {
    const t = await endedTranscript(id);
    expect(t.source_kind).toBe("live");
    expect(t.duration).toBeGreaterThan(20_000);
    expect(vocabularyShare(said, t.transcript as string), t.transcript as string).toBeGreaterThanOrEqual(0.5);
    const mp3 = await ok(alice.GET("/v1/transcripts/{transcript_id}/audio/mp3", { ...onTranscript(id), parseAs: "arrayBuffer" }));
    expect(mp3.byteLength).toBeGreaterThan(10_000);
  });
});

describe("a live session whose service dies mid-stream", () => {
  it(
    "is recovered from the stored audio and finished, not left recording",
    async () => {
      const id = await newTranscript("Live crash");
      const socket = await mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer);
      const peer = await connectLivePeer(alice, id);
      // About 12 s: the first segments are stored, then the process "dies" without flushing.
      await peer.play(packets.slice(0, 600));
      await eventually(() => socket.messages.filter((m) => m.event === "DURATION").length >= 2, { message: "two segments stored" });
      live.abandonAll();
      await peer.close();
      expect((await read(id)).status).toBe("recording");

      // Another process (here: the same one, with the clock past the lease) finds it abandoned.
      expect((await live.recoverAbandoned({ now: new Date() })).recovered).toEqual([]);
      const later = new Date(Date.now() + (LEASE_SECONDS + 5) * 1000);
      expect((await live.recoverAbandoned({ now: later })).recovered).toHaveLength(1);
      await eventually(() => socket.messages.some(status("ended")), { timeoutMs: RUN_MS, message: "STATUS ended after recovery" });
      const t = await endedTranscript(id);
      expect(t.duration).toBeGreaterThanOrEqual(5_000);
      expect(normalisedWords(t.transcript as string)).toEqual(expect.arrayContaining(["morning"]));
      socket.close();
    },
    RUN_MS + 60_000,
  );
});

describe("several sessions at once, and one that goes quiet", () => {
  it("keeps each session's words on its own transcript; a peer that stops sending ends by the idle timeout", async () => {
    const ids = [await newTranscript("Live A"), await newTranscript("Live B")];
    const sockets = await Promise.all(ids.map((id) => mustOpen(sys.baseUrl, `/v1/transcripts/${id}/events`, bearer)));
    const peers = await Promise.all(ids.map((id) => connectLivePeer(alice, id)));
    // A: the first sentences; B: the last ones. Neither sends STOP: they just go quiet.
    await Promise.all([peers[0]!.play(packets.slice(0, 350)), peers[1]!.play(packets.slice(-450))]);
    for (const socket of sockets) {
      await eventually(() => socket.messages.some(status("processing")), {
        timeoutMs: 120_000,
        message: "processing after the idle timeout",
      });
    }
    const [a, b] = sockets.map((socket) => normalisedWords(textOf(socket.messages)));
    expect(a, a!.join(" ")).toEqual(expect.arrayContaining(["morning"]));
    expect(a).not.toEqual(expect.arrayContaining(["week"]));
    expect(b, b!.join(" ")).toEqual(expect.arrayContaining(["week"]));
    expect(b).not.toEqual(expect.arrayContaining(["morning"]));
    for (const socket of sockets) socket.close();
    await Promise.all(peers.map((p) => p.close()));
  }, 240_000);
});

describe("refusals", () => {
  it("a session without audio ends in error with the reason", async () => {
    const id = await newTranscript("Live silence");
    const peer = await connectLivePeer(alice, id);
    peer.stop();
    await eventually(async () => (await read(id)).status === "error", {
      timeoutMs: 60_000,
      message: "status error",
    });
    await peer.close();
  }, 90_000);

  it("a locked transcript: 400 Transcript is locked", async () => {
    const id = await newTranscript("Live locked");
    await ok(alice.PATCH("/v1/transcripts/{transcript_id}", { ...onTranscript(id), body: { locked: true } }));
    const err = await connectLivePeer(alice, id).then(
      () => null,
      (e: Error & { status: number }) => e,
    );
    expect(err?.status).toBe(400);
    expect(err?.message).toContain("Transcript is locked");
  });

  it("an answer instead of an offer, or SDP that is not SDP: 422 naming the field", async () => {
    const id = await newTranscript("Live bad offer");
    // The missing sdp is a body the contract refuses, sent through the typed client all the same.
    const post = (body: Schemas["RtcOffer"]) =>
      answer(alice.POST("/v1/transcripts/{transcript_id}/record/webrtc", { ...onTranscript(id), body }));
    const wrongType = await post({ sdp: "v=0", type: "answer" });
    expect(wrongType.status).toBe(422);
    expect(JSON.stringify(wrongType.body)).toContain('"type"');
    const notSdp = await post({ sdp: "hello", type: "offer" });
    expect(notSdp.status).toBe(422);
    expect(JSON.stringify(notSdp.body)).toContain('"sdp"');
    const missing = await post({ type: "offer" } as never);
    expect(missing.status).toBe(422);
    expect((await read(id)).status).toBe("idle");
  });
});

function normalisedWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}
