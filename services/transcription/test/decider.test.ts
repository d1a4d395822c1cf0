// The transcript decider (services/transcription/src/domain/decider.ts) as given/when/then: the
// events that happened, the command, the events it decides (or its refusal). No database.
import {
  RecordingReady,
  TranscriptCompleted,
  completedTexts,
  gunzipText,
  topicsToWebvtt,
  webvttOfGzip,
  wordsToWebvtt,
  type TopicRecord,
  type TranscriptState,
  type TranscriptUpdated,
} from "@scribe/contracts";
import { evolveAll } from "@scribe/kit";
import { deciderSpec } from "@scribe/kit/testing";
import { describe, expect, it } from "vitest";
import { loads, transcriptDecider, type TranscriptCommand, type TranscriptEvent } from "../src/domain/decider";
import { RuleError, newAggregate, type LateCall, type RefusalKind } from "../src/domain/transcript";

const { given } = deciderSpec(transcriptDecider, (produced, expected) => expect(produced).toEqual(expected));
const created = new Date("2026-11-21T10:00:00Z");
const now = new Date("2026-11-21T11:00:00Z");
const at = now.toISOString();
const ID = "t1";
const RUN = "run-1";

const initial = (over: Partial<TranscriptState> = {}): TranscriptState => ({
  ...newAggregate({ id: ID, now: created, user_id: "alice", name: "n", source_kind: "file" }).state,
  ...over,
});
const createdEv = (over: Partial<TranscriptState> = {}): TranscriptEvent => ({ type: "transcript.created", data: initial(over) });
/** The state after `events`, for building expectations. */
const stateAfter = (events: TranscriptEvent[]) => evolveAll(transcriptDecider, events)!.state;
/**
 * Matches a `webvtt_gzip` that unpacks to `webvtt`: a string, null or an asymmetric matcher such as
 * expect.stringContaining (a compressed WebVTT is compared by what it holds, not by its bytes).
 */
const gzipOf = (webvtt: unknown) => ({
  asymmetricMatch: (actual: unknown) => {
    if (actual !== null && typeof actual !== "string") return false;
    const text = webvttOfGzip(actual);
    const inner = webvtt as { asymmetricMatch?: (v: unknown) => boolean } | null;
    return typeof inner?.asymmetricMatch === "function" ? inner.asymmetricMatch(text) : text === webvtt;
  },
  toString: () => "webvtt_gzip of",
  toAsymmetricMatcher: () => `webvtt_gzip of ${String(webvtt)}`,
});
/** transcript.updated after `before` with `change`: the WebVTT, compressed, only when the change names it (TranscriptUpdated v3). */
const updated = (before: TranscriptEvent[], change: Partial<TranscriptState>, version?: number): TranscriptEvent => {
  const { webvtt, ...data } = { ...stateAfter(before), ...change, updated_at: at };
  data.version = version ?? stateAfter(before).version + 1;
  return { type: "transcript.updated", data: "webvtt" in change ? { ...data, webvtt_gzip: gzipOf(webvtt) as unknown as string } : data };
};
const refusedAs = (kind: RefusalKind, message?: string) => (e: unknown) =>
  e instanceof RuleError && e.kind === kind && (message === undefined || e.message === message);
const refusedLate = (late: LateCall) => (e: unknown) => e instanceof RuleError && e.kind === "conflict" && e.late === late;

const recording: RecordingReady = RecordingReady.parse({
  recording_id: "rec-1",
  transcript_id: ID,
  source: "upload",
  kind: "file",
  bucket: "transcripts",
  file: { key: "t1/upload.webm", size: 10 },
  owner_user_id: "alice",
  recorded_at: created.toISOString(),
});

const topic = (id: string, words: [string, number, number][]): TopicRecord => ({
  id,
  title: id,
  summary: "",
  timestamp: words[0]?.[1] ?? 0,
  duration: null,
  transcript: null,
  words: words.map(([text, start, speaker]) => ({ text, start, end: start + 0.5, speaker })),
});
const T1 = topic("a", [
  ["Hello", 0, 0],
  [" world.", 0.5, 0],
]);
const T2 = topic("b", [["Bye.", 2, 1]]);

/** A transcript with a recording attached and RUN started. */
const running: TranscriptEvent[] = [
  createdEv(),
  { type: "recording.attached", data: { recording } },
  { type: "run.started", data: { run_id: RUN } },
];
/** The STATUS entry a status change logs for the sockets, with the version a reader must reach once it hears it. */
const statusEntry = (value: string, version: number, run_id = RUN): TranscriptEvent => ({
  type: "transcript.event.appended",
  data: { transcript_id: ID, user_id: "alice", run_id, event: "STATUS", data: { value }, version },
});
const withTopics = (topics: TopicRecord[]): TranscriptEvent[] => {
  const replaced = transcriptDecider.decide({ type: "replaceTopics", run_id: RUN, topics, now }, evolveAll(transcriptDecider, running));
  return [...running, ...replaced];
};

describe("creation", () => {
  it("announces a new transcript, and to its owner's socket when it has one", () => {
    given([])
      .when({ type: "create", transcript: initial() })
      .then([
        createdEv(),
        {
          type: "transcript.lifecycle.changed",
          data: { transcript_id: ID, user_id: "alice", action: "created", version: initial().version },
        },
      ]);
    given([])
      .when({ type: "create", transcript: initial({ user_id: null }) })
      .then([createdEv({ user_id: null })]);
  });
  it("refuses to create a transcript twice", () => {
    given([createdEv()]).when({ type: "create", transcript: initial() }).thenThrows(refusedAs("bad_request"));
  });
  it("refuses every other command on a transcript that does not exist", () => {
    given([]).when({ type: "setShareMode", share_mode: "public", now }).thenThrows(refusedAs("not_found", "Transcript not found"));
  });
});

describe("API edits", () => {
  it("a patch bumps the version once and stamps updated_at with the command's clock", () => {
    given([createdEv()])
      .when({ type: "update", patch: { title: "Weekly", reviewed: true }, newIds: [], now })
      .then([updated([createdEv()], { title: "Weekly", reviewed: true }, 2)]);
  });
  it("a patch that changes nothing decides nothing (idempotent)", () => {
    given([createdEv({ title: "Weekly" })])
      .when({ type: "update", patch: { title: "Weekly" }, newIds: [], now })
      .then([]);
  });
  it("participants without an id get the command's new ids, in order", () => {
    const [e] = given([createdEv()])
      .when({
        type: "update",
        patch: {
          participants: [
            { name: "A", speaker: 0, user_id: null },
            { id: "p2", name: "B", speaker: null, user_id: null },
          ],
        },
        newIds: ["n1"],
        now,
      })
      .then([
        updated([createdEv()], {
          participants: [
            { id: "n1", name: "A", speaker: 0, user_id: null },
            { id: "p2", name: "B", speaker: null, user_id: null },
          ],
        }),
      ]);
    expect(e!.type).toBe("transcript.updated");
  });
  it("soft delete records deleted_at once; a second delete keeps the first", () => {
    const deleted = given([createdEv()])
      .when({ type: "softDelete", by: "alice", now })
      .then([
        updated([createdEv()], { deleted_at: at }),
        {
          type: "transcript.lifecycle.changed",
          data: { transcript_id: ID, user_id: "alice", action: "deleted", version: stateAfter([createdEv()]).version + 1 },
        },
      ]);
    given([createdEv(), ...deleted])
      .when({ type: "softDelete", by: "alice", now: new Date("2026-11-22T00:00:00Z") })
      .then([]);
  });
  it("restores only a deleted transcript", () => {
    given([createdEv()]).when({ type: "restore", by: "alice", now }).thenThrows(refusedAs("bad_request", "Transcript is not deleted"));
    given([createdEv({ deleted_at: at })])
      .when({ type: "restore", by: "alice", now })
      .then([
        updated([createdEv({ deleted_at: at })], { deleted_at: null }),
        {
          type: "transcript.lifecycle.changed",
          data: {
            transcript_id: ID,
            user_id: "alice",
            action: "restored",
            version: stateAfter([createdEv({ deleted_at: at })]).version + 1,
          },
        },
      ]);
  });
  it("a user destroys only a soft-deleted transcript; retention destroys any, announced with the next version and no content", () => {
    given([createdEv()])
      .when({ type: "destroy", reason: "user", now })
      .thenThrows(refusedAs("bad_request", "Transcript must be soft-deleted first"));
    const contentFree = {
      name: "",
      title: null,
      short_summary: null,
      long_summary: null,
      action_items: null,
      participants: [],
      webvtt: null,
    };
    given([createdEv({ title: "Secret plans", participants: [{ id: "a", name: "A", speaker: 0, user_id: null }] })])
      .when({ type: "destroy", reason: "retention", now })
      .then([
        {
          type: "transcript.destroyed",
          data: { transcript: { ...initial(), ...contentFree, version: 2, updated_at: at }, reason: "retention" },
        },
      ]);
    const gone = evolveAll(transcriptDecider, [
      createdEv(),
      { type: "transcript.destroyed", data: { transcript: initial(), reason: "retention" } },
    ]);
    expect(gone).toBeNull();
  });
  it("refuses a participant whose speaker another has", () => {
    const ps = [{ id: "a", name: "A", speaker: 0, user_id: null }];
    given([createdEv({ participants: ps })])
      .when({ type: "addParticipant", participant: { id: "b", name: "B", speaker: 0 }, now })
      .thenThrows(refusedAs("bad_request", "Speaker already assigned"));
    given([createdEv({ participants: ps })])
      .when({ type: "updateParticipant", participant_id: "zzz", patch: { name: "Z" }, now })
      .thenThrows(refusedAs("not_found", "Participant not found"));
  });
  it("assigning a speaker rewrites only the topics it touches, then the WebVTT", () => {
    const before = withTopics([T1, T2]);
    const events = given(before)
      .when({ type: "assignSpeaker", assignment: { speaker: 5, timestamp_from: 1.5, timestamp_to: 3 }, now })
      .then([
        {
          type: "transcript.topic.upserted",
          data: {
            transcript_id: ID,
            version: stateAfter(before).version + 1,
            position: 1,
            topic: { ...T2, words: [{ ...T2.words[0]!, speaker: 5 }] },
          },
        },
        updated(before, { webvtt: expect.stringContaining("<v Speaker5>Bye.") as unknown as string }, stateAfter(before).version + 2),
      ]);
    expect(events).toHaveLength(2);
  });
});

describe("pipeline runs", () => {
  it("a recording becomes the transcript's source; an upload makes it an uploaded file transcript", () => {
    given([createdEv({ source_kind: "live" })])
      .when({ type: "attachRecording", recording, now })
      .then([
        updated([createdEv({ source_kind: "live" })], { recording_id: "rec-1", status: "uploaded", source_kind: "file" }),
        { type: "recording.attached", data: { recording } },
      ]);
  });
  it("a fresh run clears topics and the event log and becomes the only run that may write", () => {
    const before = withTopics([T1]);
    const events = given(before)
      .when({ type: "startRun", run_id: "run-2", now })
      .then([
        { type: "transcript.topics.cleared", data: { transcript_id: ID, version: stateAfter(before).version + 1 } },
        updated(before, { webvtt: expect.any(String) as unknown as string }, stateAfter(before).version + 2),
        { type: "run.started", data: { run_id: "run-2" } },
      ]);
    const after = evolveAll(transcriptDecider, [...before, ...events])!;
    expect(after).toMatchObject({ topics: [], events: [], current_run_id: "run-2" });
    given([...before, ...events])
      .when({ type: "markProcessing", run_id: RUN, now })
      .thenThrows(refusedLate("stale_run"));
  });
  it("refuses every call of a run that is not the current one", () => {
    const calls: TranscriptCommand[] = [
      { type: "markProcessing", run_id: "old", now },
      { type: "updateFromRun", run_id: "old", patch: { title: "late" }, now },
      { type: "replaceTopics", run_id: "old", topics: [T1], now },
      { type: "appendEvent", run_id: "old", event: "DURATION", data: { duration: 1 } },
      { type: "complete", run_id: "old", now },
      { type: "fail", run_id: "old", reason: "boom", now },
    ];
    for (const c of calls) given(running).when(c).thenThrows(refusedLate("stale_run"));
  });
  it("marking processing logs STATUS for the sockets; again, nothing", () => {
    const events = given(running)
      .when({ type: "markProcessing", run_id: RUN, now })
      .then([updated(running, { status: "processing", error: null }), statusEntry("processing", stateAfter(running).version + 1)]);
    given([...running, ...events])
      .when({ type: "markProcessing", run_id: RUN, now })
      .then([]);
  });
  it("a pipeline patch sets only its defined fields; the same values decide nothing", () => {
    const events = given(running)
      .when({ type: "updateFromRun", run_id: RUN, patch: { title: "Weekly", duration: 1500, long_summary: undefined }, now })
      .then([updated(running, { title: "Weekly", duration: 1500 })]);
    given([...running, ...events])
      .when({ type: "updateFromRun", run_id: RUN, patch: { title: "Weekly" }, now })
      .then([]);
  });
  it("replacing topics: a new list is cleared + every topic, then the state with the WebVTT, each a newer version", () => {
    const v = stateAfter(running).version;
    const events = given(running)
      .when({ type: "replaceTopics", run_id: RUN, topics: [T1, T2], now })
      .then([
        { type: "transcript.topics.cleared", data: { transcript_id: ID, version: v + 1 } },
        { type: "transcript.topic.upserted", data: { transcript_id: ID, version: v + 2, position: 0, topic: T1 } },
        { type: "transcript.topic.upserted", data: { transcript_id: ID, version: v + 3, position: 1, topic: T2 } },
        updated(running, { webvtt: expect.stringContaining("<v Speaker0>Hello world.") as unknown as string }, v + 4),
      ]);
    // v3: the new WebVTT travels compressed only, and the state the event leaves holds it as text.
    const announced = events[3]!.data as TranscriptUpdated;
    expect(announced).not.toHaveProperty("webvtt");
    expect(webvttOfGzip(announced.webvtt_gzip!)).toBe(topicsToWebvtt([T1, T2]));
    expect(stateAfter([...running, ...events]).webvtt).toBe(topicsToWebvtt([T1, T2]));
    given([...running, ...events])
      .when({ type: "replaceTopics", run_id: RUN, topics: [T1, T2], now })
      .then([]);
  });
  it("replacing topics with the same ids announces only the topics whose content changed", () => {
    const before = withTopics([T1, T2]);
    const v = stateAfter(before).version;
    const T2b = { ...T2, title: "renamed" };
    // The words did not change, so neither did the WebVTT: no transcript.updated, but a newer version.
    const events = given(before)
      .when({ type: "replaceTopics", run_id: RUN, topics: [T1, T2b], now })
      .then([{ type: "transcript.topic.upserted", data: { transcript_id: ID, version: v + 1, position: 1, topic: T2b } }]);
    expect(evolveAll(transcriptDecider, [...before, ...events])).toMatchObject({ state: { version: v + 1 }, topics: [T1, T2b] });
  });
  it("appends a realtime event once, however often the step runs", () => {
    const entry = {
      type: "transcript.event.appended",
      data: {
        transcript_id: ID,
        user_id: "alice",
        run_id: RUN,
        event: "FINAL_TITLE",
        data: { title: "W" },
        // A log entry changes no state: the version the transcript already has.
        version: stateAfter(running).version,
      },
    } as const;
    const events = given(running)
      .when({ type: "appendEvent", run_id: RUN, event: "FINAL_TITLE", data: { title: "W" } })
      .then([entry]);
    given([...running, ...events])
      .when({ type: "appendEvent", run_id: RUN, event: "FINAL_TITLE", data: { title: "W" } })
      .then([]);
  });
  it("completes once per run: ended, transcript.completed with the WebVTT once and the topics' as parts of it, then STATUS", () => {
    const before = withTopics([T1, T2]);
    const { webvtt, ...s } = stateAfter(before);
    const events = given(before)
      .when({ type: "complete", run_id: RUN, now })
      .then([
        {
          type: "transcript.completed",
          data: {
            transcript: { ...s, status: "ended", error: null, version: s.version + 1, updated_at: at },
            webvtt_gzip: expect.any(String),
            topics: [T1, T2].map((t) => ({
              id: t.id,
              title: t.title,
              summary: t.summary,
              timestamp: t.timestamp,
              duration: t.duration,
              webvtt_parts: expect.any(Array),
            })),
            run_id: RUN,
            completed_at: at,
          },
        },
        statusEntry("ended", s.version + 1),
      ]);
    const data = TranscriptCompleted.parse(events[0]!.data);
    expect(gunzipText(data.webvtt_gzip!)).toBe(webvtt);
    // Each topic's cues are the transcript's (a speaker change between them): ranges only, no text.
    for (const t of data.topics) expect(t.webvtt_parts!.every((p) => typeof p !== "string")).toBe(true);
    // What the webhook gets is what v1 carried: the stored WebVTT, each topic's own.
    expect(completedTexts(data)).toEqual({
      webvtt,
      topics: [T1, T2].map((t) => expect.objectContaining({ webvtt: wordsToWebvtt(t.words) })),
    });
    expect(stateAfter([...before, ...events])).toMatchObject({ status: "ended", webvtt });
    given([...before, ...events])
      .when({ type: "complete", run_id: RUN, now })
      .then([]);
  });
  it("fails with the reason, but never over ended", () => {
    given(running)
      .when({ type: "fail", run_id: RUN, reason: "no audio stream", now })
      .then([updated(running, { status: "error", error: "no audio stream" }), statusEntry("error", stateAfter(running).version + 1)]);
    const ended = [...running, updated(running, { status: "ended" })];
    given(ended).when({ type: "fail", run_id: RUN, reason: "late", now }).thenThrows(refusedLate("ended"));
  });
});

describe("live recordings", () => {
  it("a session becomes the run: recording, topics and log cleared, STATUS; a locked transcript refuses", () => {
    const before = withTopics([T1]);
    const events = given(before)
      .when({ type: "startLiveRecording", run_id: "live-1", now })
      .then([
        { type: "transcript.topics.cleared", data: { transcript_id: ID, version: stateAfter(before).version + 1 } },
        updated(
          before,
          { status: "recording", error: null, duration: 0, source_kind: "live", webvtt: expect.any(String) as unknown as string },
          stateAfter(before).version + 2,
        ),
        { type: "run.started", data: { run_id: "live-1" } },
        statusEntry("recording", stateAfter(before).version + 2, "live-1"),
      ]);
    expect(evolveAll(transcriptDecider, [...before, ...events])).toMatchObject({
      current_run_id: "live-1",
      topics: [],
      events: [{ event: "STATUS", data: { value: "recording" } }],
    });
    given([createdEv({ locked: true })])
      .when({ type: "startLiveRecording", run_id: "live-1", now })
      .thenThrows(refusedAs("bad_request", "Transcript is locked"));
  });
  it("a session that is no longer the current run hands over nothing and fails nothing", () => {
    given(running).when({ type: "handOverLiveRecording", run_id: "live-old", recording, now }).thenThrows(refusedLate("stale_run"));
    given(running).when({ type: "failLiveRecording", run_id: "live-old", reason: "x", now }).thenThrows(refusedLate("stale_run"));
  });
});

describe("what a command reads", () => {
  it("only topic commands load the topics, only appending loads the event log: the entries equal to its own", () => {
    expect(loads({ type: "updateFromRun", run_id: RUN, patch: {}, now })).toEqual({ topics: false, events: false });
    expect(loads({ type: "replaceTopics", run_id: RUN, topics: [], now })).toEqual({ topics: true, events: false });
    expect(loads({ type: "appendEvent", run_id: RUN, event: "DURATION", data: { duration: 1 } })).toEqual({
      topics: false,
      events: { event: "DURATION", data: { duration: 1 } },
    });
  });
  it("a topic command on a transcript loaded without topics is a programming error, not a silent wipe", () => {
    const a = { ...evolveAll(transcriptDecider, running)!, topics: null };
    expect(() => transcriptDecider.decide({ type: "replaceTopics", run_id: RUN, topics: [T1], now }, a)).toThrow(/not loaded/);
  });
});
