// The pure rules of live recording: utterances cut at pauses, lines at sentence ends, the public
// address announced in the answer, the transcript's live status transitions.
import { describe, expect, it } from "vitest";
import { newAggregate, RuleError } from "../src/domain/transcript";
import { MAX_LINE_CHARS, LineAssembler } from "../src/live/domain/lines";
import { offerProblem, withPublicAddress } from "../src/live/domain/sdp";
import { recordingFailed, recordingFlushed, recordingStarted } from "../src/live/domain/transitions";
import { VoiceChunker } from "../src/live/domain/voice";

const RATE = 16_000;
const tone = (seconds: number, amplitude = 8000) =>
  Int16Array.from({ length: Math.round(seconds * RATE) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE)));
const quiet = (seconds: number) => Int16Array.from({ length: Math.round(seconds * RATE) }, (_, i) => (i % 7) - 3);
const cat = (...parts: Int16Array[]) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe("VoiceChunker", () => {
  it("cuts speech at pauses, with the start time of each utterance", () => {
    const v = new VoiceChunker({ sampleRate: RATE });
    const chunks = [...v.push(cat(quiet(1), tone(1.5), quiet(1), tone(2), quiet(1))), ...v.flush()];
    expect(chunks.map((c) => c.endedBy)).toEqual(["pause", "pause"]);
    expect(chunks[0]!.start).toBeCloseTo(0.8, 1);
    expect(chunks[1]!.start).toBeCloseTo(3.3, 1);
    expect(chunks[0]!.samples.length / RATE).toBeGreaterThan(1.5);
  });

  it("gives the same utterances whatever size the pieces arrive in", () => {
    const audio = cat(quiet(0.5), tone(1), quiet(0.8), tone(1));
    const whole = new VoiceChunker({ sampleRate: RATE });
    const bits = new VoiceChunker({ sampleRate: RATE });
    const a = [...whole.push(audio), ...whole.flush()];
    const b = [];
    for (let i = 0; i < audio.length; i += 333) b.push(...bits.push(audio.subarray(i, i + 333)));
    b.push(...bits.flush());
    expect(b.map((c) => [c.start, c.samples.length, c.endedBy])).toEqual(a.map((c) => [c.start, c.samples.length, c.endedBy]));
    expect(a.map((c) => c.endedBy)).toEqual(["pause", "end"]);
  });

  it("cuts speech longer than the limit, ignores clicks and silence", () => {
    const v = new VoiceChunker({ sampleRate: RATE, maxChunkSeconds: 3 });
    const long = [...v.push(cat(tone(7), quiet(1))), ...v.flush()];
    expect(long.map((c) => c.endedBy)).toEqual(["length", "length", "pause"]);
    const clicks = new VoiceChunker({ sampleRate: RATE });
    expect([...clicks.push(cat(quiet(1), tone(0.06), quiet(1), new Int16Array(RATE))), ...clicks.flush()]).toEqual([]);
  });
});

describe("LineAssembler", () => {
  it("emits at sentence ends, keeps the unfinished rest until a pause", () => {
    const l = new LineAssembler();
    expect(l.add(" Good morning. Today we", false)).toEqual(["Good morning."]);
    expect(l.add(" review the plan", false)).toEqual([]);
    expect(l.add(" for the launch", true)).toEqual(["Today we review the plan for the launch"]);
    expect(l.add(" Is it ready? Yes! Fine", false)).toEqual(["Is it ready?", "Yes!"]);
    expect(l.flush()).toEqual(["Fine"]);
    expect(l.flush()).toEqual([]);
  });

  it("cuts a line without sentence end at 1000 characters", () => {
    const l = new LineAssembler();
    const lines = l.add("word ".repeat(300), false);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
  });
});

describe("SDP", () => {
  const answer = [
    "v=0",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111",
    "a=candidate:1 1 udp 2130706431 10.0.0.5 40002 typ host",
    "a=candidate:2 1 tcp 1 10.0.0.5 9 typ host tcptype passive",
    "",
  ].join("\r\n");

  it("announces UDP host candidates again at the public address, same port", () => {
    const out = withPublicAddress(answer, "203.0.113.7");
    expect(out).toContain("a=candidate:1p1 1 udp 2130706430 203.0.113.7 40002 typ host");
    expect(out.split("\r\n").filter((l) => l.includes("203.0.113.7"))).toHaveLength(1);
    expect(withPublicAddress(answer, null)).toBe(answer);
  });

  it("refuses what is not an offer with audio", () => {
    expect(offerProblem(answer)).toBeNull();
    expect(offerProblem("hello")).toMatch(/v=0/);
    expect(offerProblem("v=0\r\nm=video 9 UDP 96\r\n")).toMatch(/audio/);
  });
});

describe("live transitions", () => {
  const fresh = () => newAggregate({ id: "t1", now: new Date("2026-11-24T10:00:00Z"), user_id: "alice", name: "x", source_kind: "live" });

  it("recording starts from nothing: no error, no duration, a live source", () => {
    const before = fresh();
    const state = recordingStarted({ ...before, state: { ...before.state, status: "error", error: "old", duration: 5 } });
    expect(state).toMatchObject({ status: "recording", error: null, duration: 0, source_kind: "live" });
  });

  it("a locked transcript refuses", () => {
    const locked = fresh();
    locked.state.locked = true;
    expect(() => recordingStarted(locked)).toThrow(new RuleError("bad_request", "Transcript is locked"));
  });

  it("flush and failure apply only while the session is the current run; failure never overwrites ended", () => {
    const a = { ...fresh(), current_run_id: "s1" };
    a.state = recordingStarted(a);
    expect(recordingFlushed(a, "s1")?.status).toBe("processing");
    expect(recordingFlushed(a, "other")).toBeNull();
    expect(recordingFailed(a, "s1", "why")).toMatchObject({ status: "error", error: "why" });
    expect(recordingFailed({ ...a, state: { ...a.state, status: "ended" } }, "s1", "why")).toBeNull();
  });
});
