// The transcript aggregate's pure rules (services/transcription/src/domain/transcript.ts).
import type { TopicRecord, TranscriptState } from "@scribe/contracts";
import { describe, expect, it } from "vitest";
import {
  RuleError,
  addParticipant,
  applyApiPatch,
  assignSpeaker,
  createdByApi,
  defaultName,
  failed,
  markedProcessing,
  mergeSpeakers,
  newAggregate,
  processRefusal,
  resetForRun,
  updateParticipant,
} from "../src/domain/transcript";

const now = new Date("2026-11-21T23:59:00Z");
const base = () => newAggregate({ id: "t1", now, user_id: "alice", name: "n", source_kind: "file" });
const topic = (id: string, words: [number, number][]): TopicRecord => ({
  id,
  title: id,
  summary: "",
  timestamp: words[0]?.[0] ?? 0,
  duration: null,
  transcript: null,
  words: words.map(([start, speaker]) => ({ text: "w", start, end: start + 1, speaker })),
});
const speakers = (ts: TopicRecord[]) => ts.map((t) => t.words.map((w) => w.speaker));
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof RuleError ? { kind: e.kind, detail: e.message } : e;
  }
  return null;
};

describe("creation", () => {
  it("creates through the API as idle, private, live unless a source kind is given", () => {
    const a = createdByApi({ name: "x", source_language: "en", target_language: "fr", source_kind: null }, "id", null, now);
    expect(a.state).toMatchObject({
      status: "idle",
      share_mode: "private",
      source_kind: "live",
      user_id: null,
      version: 1,
      target_language: "fr",
      duration: 0,
    });
    expect(
      createdByApi({ name: "x", source_language: "en", target_language: "en", source_kind: "file" }, "id", "u", now).state.source_kind,
    ).toBe("file");
  });
  it("names a transcript after the UTC time by default", () => {
    expect(defaultName(now)).toBe("Transcript 2026-11-21 23:59:00");
  });
});

describe("API patch", () => {
  it("writes only the keys present, nulls included where allowed", () => {
    const s = { ...base().state, title: "old", long_summary: "keep" };
    const next = applyApiPatch(s, { title: null, reviewed: true }, () => "new-id");
    expect(next).toMatchObject({ title: null, reviewed: true, long_summary: "keep", name: "n" });
  });
  it("gives participants without an id a new one, keeps given ids", () => {
    const next = applyApiPatch(
      base().state,
      {
        participants: [
          { name: "A", speaker: 0, user_id: null },
          { id: "p2", name: "B", speaker: null, user_id: "u" },
        ],
      },
      () => "gen",
    );
    expect(next.participants).toEqual([
      { id: "gen", name: "A", speaker: 0, user_id: null },
      { id: "p2", name: "B", speaker: null, user_id: "u" },
    ]);
  });
});

describe("participants", () => {
  const ps = [
    { id: "a", name: "A", speaker: 0, user_id: null },
    { id: "b", name: "B", speaker: null, user_id: null },
  ];
  it("refuses a speaker another participant has", () => {
    expect(refused(() => addParticipant(ps, { id: "c", name: "C", speaker: 0 }))).toEqual({
      kind: "bad_request",
      detail: "Speaker already assigned",
    });
    expect(addParticipant(ps, { id: "c", name: "C", speaker: null })).toHaveLength(3);
  });
  it("updates only given keys; a name-only change is never refused for another's null speaker", () => {
    const { participant } = updateParticipant([...ps, { id: "c", name: "C", speaker: null, user_id: null }], "b", { name: "Bee" });
    expect(participant).toEqual({ id: "b", name: "Bee", speaker: null, user_id: null });
  });
  it("checks the speaker before the participant exists (rejected before not found)", () => {
    expect(refused(() => updateParticipant(ps, "zzz", { speaker: 0 }))).toEqual({
      kind: "bad_request",
      detail: "Speaker already assigned",
    });
    expect(refused(() => updateParticipant(ps, "zzz", { name: "x" }))).toEqual({ kind: "not_found", detail: "Participant not found" });
  });
});

describe("speakers", () => {
  const topics = [
    topic("t1", [
      [0, 0],
      [1, 0],
    ]),
    topic("t2", [
      [2, 0],
      [3, 0],
    ]),
  ];
  it("assigns a speaker to every word starting inside the range, bounds included, across topics", () => {
    expect(speakers(assignSpeaker(topics, [], { speaker: 2, timestamp_from: 1, timestamp_to: 2.5 }).topics)).toEqual([
      [0, 2],
      [2, 0],
    ]);
    expect(speakers(assignSpeaker(topics, [], { speaker: 4, timestamp_from: 0, timestamp_to: 100 }).topics)).toEqual([
      [4, 4],
      [4, 4],
    ]);
  });
  it("gives a speaker-less participant the lowest speaker no word uses, and saves it", () => {
    const ps = [{ id: "p", name: "P", speaker: null, user_id: null }];
    const r = assignSpeaker(topics, ps, { participant: "p", timestamp_from: 0, timestamp_to: 1 });
    expect(r.participants[0]!.speaker).toBe(1);
    expect(speakers(r.topics)).toEqual([
      [1, 1],
      [0, 0],
    ]);
  });
  it("needs exactly one of speaker and participant, and a known participant", () => {
    expect(refused(() => assignSpeaker(topics, [], { timestamp_from: 0, timestamp_to: 1 }))).toMatchObject({ kind: "bad_request" });
    expect(refused(() => assignSpeaker(topics, [], { speaker: 1, participant: "p", timestamp_from: 0, timestamp_to: 1 }))).toMatchObject({
      kind: "bad_request",
    });
    expect(refused(() => assignSpeaker(topics, [], { participant: "p", timestamp_from: 0, timestamp_to: 1 }))).toEqual({
      kind: "not_found",
      detail: "Participant not found",
    });
  });
  it("merges one label into another unless both belong to participants", () => {
    const relabelled = assignSpeaker(topics, [], { speaker: 3, timestamp_from: 0, timestamp_to: 1 }).topics;
    expect(speakers(mergeSpeakers(relabelled, [], 3, 0))).toEqual([
      [0, 0],
      [0, 0],
    ]);
    const ps = [
      { id: "a", name: "A", speaker: 3, user_id: null },
      { id: "b", name: "B", speaker: 0, user_id: null },
    ];
    expect(refused(() => mergeSpeakers(relabelled, ps, 3, 0))).toEqual({
      kind: "bad_request",
      detail: "Both speakers are assigned to participants",
    });
  });
});

describe("runs", () => {
  it("refuses to process a locked transcript, and one no recording was ever ready for", () => {
    expect(processRefusal(base())).toBe("Recording is not ready for processing");
    expect(processRefusal({ ...base(), state: { ...base().state, locked: true } })).toBe("Recording is locked");
  });
  it("resets events and topics for a fresh run; a multitrack run also participants and duration", () => {
    const a = { ...base(), topics: [topic("t", [[0, 0]])], events: [{ event: "STATUS" as const, data: { value: "ended" } }] };
    a.state = { ...a.state, duration: 5, participants: [{ id: "p", name: "P", speaker: 0, user_id: null }], title: "kept" };
    const file = resetForRun(a, "file", "r2");
    expect(file).toMatchObject({ topics: [], events: [], current_run_id: "r2" });
    expect(file.state).toMatchObject({ duration: 5, title: "kept" });
    expect(file.state.participants).toHaveLength(1);
    expect(resetForRun(a, "multitrack", "r2").state).toMatchObject({ duration: 0, participants: [], title: "kept" });
  });
  it("processing clears the error; a failure never overwrites ended", () => {
    const s: TranscriptState = { ...base().state, status: "error", error: "boom" };
    expect(markedProcessing(s)).toMatchObject({ status: "processing", error: null });
    expect(failed({ ...s, status: "processing" }, "why")).toMatchObject({ status: "error", error: "why" });
    expect(failed({ ...s, status: "ended" }, "why")).toBeNull();
  });
});
