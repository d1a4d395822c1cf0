// The transcript aggregate as a decider: `decide(command, transcript)` returns the events that record
// a change (the TRANSCRIPTS events as they go on the wire, plus two the write side keeps for itself),
// `evolve(transcript, event)` folds one into the state. Pure: ids and `now` come in the command, so
// `persist` (changes.ts) only commits what was decided. A command that changes nothing decides no
// events, which makes every command and pipeline call idempotent.
//
// Every event that changes the transcript gets the next version, so a reader waiting for the last
// one has seen them all (and the projection drops topics older than a clear: the topics come after).
import { isDeepStrictEqual } from "node:util";
import {
  completedWebvtt,
  topicsToWebvtt,
  transcriptChange,
  transcriptUpdated,
  type PipelineEventName,
  type RecordingReady,
  type TopicRecord,
  type TranscriptState,
  type TranscriptUpdated,
  type UpdateTranscript,
  type WebvttPart,
} from "@scribe/contracts";
import type { Decider } from "@scribe/kit";
import { recordingFailed, recordingFlushed, recordingStarted } from "../live/domain/transitions";
import type { PipelinePatch } from "../pipelines/port";
import {
  RuleError,
  addParticipant,
  applyApiPatch,
  assignSpeaker,
  failed,
  markedProcessing,
  mergeSpeakers,
  removeParticipant,
  resetForRun,
  updateParticipant,
  type Aggregate,
  type LoggedEvent,
} from "./transcript";

type Assignment = Parameters<typeof assignSpeaker>[2];

export type TranscriptCommand =
  | { type: "create"; transcript: TranscriptState }
  /** `newIds`: ids for the patch's participants that come without one, in order. */
  | { type: "update"; patch: UpdateTranscript; newIds: readonly string[]; now: Date }
  | { type: "softDelete"; by: string; now: Date }
  | { type: "restore"; by: string; now: Date }
  | { type: "destroy"; reason: "user" | "retention"; now: Date }
  | { type: "setShareMode"; share_mode: TranscriptState["share_mode"]; now: Date }
  | { type: "addParticipant"; participant: { id: string; name: string; speaker: number | null }; now: Date }
  | { type: "updateParticipant"; participant_id: string; patch: Parameters<typeof updateParticipant>[2]; now: Date }
  | { type: "removeParticipant"; participant_id: string; now: Date }
  | { type: "assignSpeaker"; assignment: Assignment; now: Date }
  | { type: "mergeSpeakers"; from: number; to: number; now: Date }
  | { type: "attachRecording"; recording: RecordingReady; now: Date }
  | { type: "startRun"; run_id: string; now: Date }
  | { type: "markProcessing"; run_id: string; now: Date }
  | { type: "updateFromRun"; run_id: string; patch: PipelinePatch; now: Date }
  | { type: "replaceTopics"; run_id: string; topics: TopicRecord[]; now: Date }
  | { type: "appendEvent"; run_id: string; event: PipelineEventName; data: Record<string, unknown> }
  | { type: "complete"; run_id: string; now: Date }
  | { type: "fail"; run_id: string; reason: string; now: Date }
  /** A live recording's session is its run (live/): it starts, its audio is handed over, or it fails. */
  | { type: "startLiveRecording"; run_id: string; now: Date }
  | { type: "handOverLiveRecording"; run_id: string; recording: RecordingReady; now: Date }
  | { type: "failLiveRecording"; run_id: string; reason: string; now: Date };

type CompletedTopic = {
  id: string;
  title: string;
  summary: string;
  timestamp: number;
  duration: number | null;
  webvtt_parts: WebvttPart[];
};

/** Published on TRANSCRIPTS with exactly these data (the contracts' schemas). */
export type PublishedEvent =
  | { type: "transcript.created"; data: TranscriptState }
  | { type: "transcript.updated"; data: TranscriptUpdated }
  | { type: "transcript.topics.cleared"; data: { transcript_id: string; version: number } }
  | { type: "transcript.topic.upserted"; data: { transcript_id: string; version: number; position: number; topic: TopicRecord } }
  | {
      type: "transcript.completed";
      data: { transcript: TranscriptUpdated; webvtt_gzip: string | null; topics: CompletedTopic[]; run_id: string; completed_at: string };
    }
  | { type: "transcript.destroyed"; data: { transcript: TranscriptState; reason: "user" | "retention" } }
  | {
      type: "transcript.event.appended";
      data: {
        transcript_id: string;
        user_id: string | null;
        run_id: string | null;
        event: PipelineEventName;
        data: Record<string, unknown>;
        version?: number;
      };
    }
  | {
      type: "transcript.lifecycle.changed";
      data: { transcript_id: string; user_id: string; action: "created" | "deleted" | "restored"; version?: number };
    };

/** Kept by the write side only: which recording to process, which run may write. */
export type InternalEvent =
  { type: "recording.attached"; data: { recording: RecordingReady } } | { type: "run.started"; data: { run_id: string } };

export type TranscriptEvent = PublishedEvent | InternalEvent;

const INTERNAL: ReadonlySet<TranscriptEvent["type"]> = new Set(["recording.attached", "run.started"]);
export const isPublished = (e: TranscriptEvent): e is PublishedEvent => !INTERNAL.has(e.type);

/**
 * What a command reads besides the state: long transcripts' topics are loaded only then, the WebVTT
 * (which a write that does not change it leaves to the outbox, store.ts) only for a completion,
 * which carries it compressed, and of the event log only the entries equal to the one appended:
 * all the duplicate rule looks at (an index probe in the store, however long the run's log).
 */
export function loads(command: TranscriptCommand): { topics: boolean; events: false | LoggedEvent; webvtt?: true } {
  const topics = [
    "assignSpeaker",
    "mergeSpeakers",
    "startRun",
    "replaceTopics",
    "complete",
    "startLiveRecording",
    "handOverLiveRecording",
  ].includes(command.type);
  const events = command.type === "appendEvent" ? { event: command.event, data: command.data } : false;
  return { topics, events, ...(command.type === "complete" ? { webvtt: true as const } : {}) };
}

function loaded<T>(part: T[] | null, what: string): T[] {
  if (part === null) throw new Error(`the transcript's ${what} were not loaded for this command (see loads())`);
  return part;
}

/**
 * transcript.completed v2's data besides the state: the WebVTT once (completed-webvtt.ts), the
 * topics as the webhook sends them (no words), each with its WebVTT as parts of the transcript's.
 */
export function completedContent(webvtt: string | null, topics: TopicRecord[]): { webvtt_gzip: string | null; topics: CompletedTopic[] } {
  const { webvtt_gzip, topicParts } = completedWebvtt(webvtt, topics);
  return {
    webvtt_gzip,
    topics: topics.map((t, i) => ({
      id: t.id,
      title: t.title,
      summary: t.summary,
      timestamp: t.timestamp,
      duration: t.duration,
      webvtt_parts: topicParts[i]!,
    })),
  };
}

const sameState = (a: TranscriptState, b: TranscriptState) =>
  isDeepStrictEqual({ ...a, version: 0, updated_at: "" }, { ...b, version: 0, updated_at: "" });

/**
 * The events of a change to the state and/or the topics. Topics: a different list (ids or length)
 * is announced as cleared + every topic, the same ids with other content as the changed topics only;
 * a change of topics regenerates the WebVTT. `stateEvent` replaces transcript.updated; `always`
 * announces the state even when it did not change.
 */
function changed(
  a: Aggregate,
  now: Date,
  next: { state?: TranscriptState; topics?: TopicRecord[] },
  announce: { stateEvent?: (s: TranscriptState) => PublishedEvent; always?: boolean } = {},
): PublishedEvent[] {
  const id = a.state.id;
  const events: PublishedEvent[] = [];
  let version = a.state.version;
  let state = next.state ?? a.state;
  if (next.topics) {
    const before = loaded(a.topics, "topics");
    const sameIds = before.length === next.topics.length && before.every((t, i) => t.id === next.topics![i]!.id);
    if (!sameIds) events.push({ type: "transcript.topics.cleared", data: { transcript_id: id, version: ++version } });
    next.topics.forEach((topic, position) => {
      if (sameIds && isDeepStrictEqual(before[position], topic)) return;
      events.push({ type: "transcript.topic.upserted", data: { transcript_id: id, version: ++version, position, topic } });
    });
    if (events.length > 0) state = { ...state, webvtt: topicsToWebvtt(next.topics) };
  }
  const announceState = announce.always || !sameState(a.state, state);
  if (!announceState && events.length === 0) return [];
  if (announceState) version++;
  state = { ...state, version, updated_at: now.toISOString() };
  if (announceState)
    events.push(announce.stateEvent ? announce.stateEvent(state) : { type: "transcript.updated", data: updateOf(a.state, state) });
  return events;
}

/** The state as transcript.updated carries it: the WebVTT only when it changed, compressed (see TranscriptUpdated). */
function updateOf(before: TranscriptState, after: TranscriptState): TranscriptUpdated {
  return transcriptUpdated(after, after.webvtt !== before.webvtt);
}

function onCurrentRun(a: Aggregate, runId: string): void {
  if (a.current_run_id !== runId)
    throw new RuleError("conflict", `run ${runId} is not the transcript's current run (${a.current_run_id ?? "none"})`, "stale_run");
}

/** A status change is logged as STATUS for the transcript's sockets (and the owner's). */
function statusLogged(before: TranscriptState, after: TranscriptState, runId: string): PublishedEvent[] {
  if (after.status === before.status) return [];
  return [
    {
      type: "transcript.event.appended",
      data: { transcript_id: after.id, user_id: after.user_id, run_id: runId, event: "STATUS", data: { value: after.status } },
    },
  ];
}

function exists(a: Aggregate | null): Aggregate {
  if (!a) throw new RuleError("not_found", "Transcript not found");
  return a;
}

export function decide(command: TranscriptCommand, current: Aggregate | null): TranscriptEvent[] {
  return withReadVersion(decideChange(command, current), current);
}

/** The transcript's version an event sets (0: none). */
function versionSetBy(e: TranscriptEvent): number {
  switch (e.type) {
    case "transcript.created":
    case "transcript.updated":
    case "transcript.topics.cleared":
    case "transcript.topic.upserted":
      return e.data.version;
    case "transcript.completed":
      return e.data.transcript.version;
    default:
      return 0;
  }
}

/**
 * What the sockets relay (log entries, lifecycle announcements) carries the version the transcript has
 * once the command's events are applied: a client that hears "ended" and then reads the transcript
 * must find it ended, so the gateway relays an entry only once the read model holds that version.
 */
function withReadVersion(events: TranscriptEvent[], current: Aggregate | null): TranscriptEvent[] {
  const version = Math.max(current?.state.version ?? 0, ...events.map(versionSetBy));
  if (version < 1) return events;
  return events.map((e): TranscriptEvent => {
    if (e.type === "transcript.event.appended") return { ...e, data: { ...e.data, version } };
    if (e.type === "transcript.lifecycle.changed") return { ...e, data: { ...e.data, version } };
    return e;
  });
}

function decideChange(command: TranscriptCommand, current: Aggregate | null): TranscriptEvent[] {
  if (command.type === "create") {
    if (current) throw new RuleError("bad_request", "Transcript already exists");
    const s = command.transcript;
    const created: TranscriptEvent[] = [{ type: "transcript.created", data: s }];
    if (s.user_id)
      created.push({ type: "transcript.lifecycle.changed", data: { transcript_id: s.id, user_id: s.user_id, action: "created" } });
    return created;
  }
  const a = exists(current);
  const s = a.state;
  switch (command.type) {
    case "update": {
      let i = 0;
      return changed(a, command.now, { state: applyApiPatch(s, command.patch, () => command.newIds[i++]!) });
    }
    case "softDelete":
      // Already deleted: nothing to do, the first deleted_at is kept.
      if (s.deleted_at !== null) return [];
      return [
        ...changed(a, command.now, { state: { ...s, deleted_at: command.now.toISOString() } }),
        { type: "transcript.lifecycle.changed", data: { transcript_id: s.id, user_id: command.by, action: "deleted" } },
      ];
    case "restore":
      if (s.deleted_at === null) throw new RuleError("bad_request", "Transcript is not deleted");
      return [
        ...changed(a, command.now, { state: { ...s, deleted_at: null } }),
        { type: "transcript.lifecycle.changed", data: { transcript_id: s.id, user_id: command.by, action: "restored" } },
      ];
    case "destroy":
      if (command.reason === "user" && s.deleted_at === null) throw new RuleError("bad_request", "Transcript must be soft-deleted first");
      return [
        {
          type: "transcript.destroyed",
          data: {
            transcript: contentFree({ ...s, version: s.version + 1, updated_at: command.now.toISOString() }),
            reason: command.reason,
          },
        },
      ];
    case "setShareMode":
      return changed(a, command.now, { state: { ...s, share_mode: command.share_mode } });
    case "addParticipant":
      return changed(a, command.now, { state: { ...s, participants: addParticipant(s.participants, command.participant) } });
    case "updateParticipant":
      return changed(a, command.now, {
        state: { ...s, participants: updateParticipant(s.participants, command.participant_id, command.patch).participants },
      });
    case "removeParticipant":
      return changed(a, command.now, { state: { ...s, participants: removeParticipant(s.participants, command.participant_id) } });
    case "assignSpeaker": {
      const { topics, participants } = assignSpeaker(loaded(a.topics, "topics"), s.participants, command.assignment);
      return changed(a, command.now, { state: { ...s, participants }, topics });
    }
    case "mergeSpeakers":
      return changed(a, command.now, { topics: mergeSpeakers(loaded(a.topics, "topics"), s.participants, command.from, command.to) });
    case "attachRecording": {
      const r = command.recording;
      const state: TranscriptState = {
        ...s,
        recording_id: r.recording_id,
        meeting_id: r.meeting_id ?? s.meeting_id,
        room_id: r.room_id ?? s.room_id,
        // An upload completes as `uploaded`, a file transcript (behaviour §3.1); it is processed next.
        ...(r.source === "upload" ? { status: "uploaded" as const, source_kind: "file" as const } : {}),
      };
      const attached: TranscriptEvent[] = isDeepStrictEqual(a.recording_source, r)
        ? []
        : [{ type: "recording.attached", data: { recording: r } }];
      return [...changed(a, command.now, { state }), ...attached];
    }
    case "startRun": {
      if (!a.recording_source) throw new RuleError("bad_request", "Recording is not ready for processing");
      const reset = resetForRun(a, a.recording_source.kind, command.run_id);
      return [...changed(a, command.now, { state: reset.state, topics: [] }), { type: "run.started", data: { run_id: command.run_id } }];
    }
    case "markProcessing": {
      onCurrentRun(a, command.run_id);
      const next = markedProcessing(s);
      const events = changed(a, command.now, { state: next });
      return events.length ? [...events, ...statusLogged(s, next, command.run_id)] : [];
    }
    case "updateFromRun": {
      onCurrentRun(a, command.run_id);
      const defined = Object.fromEntries(Object.entries(command.patch).filter(([, v]) => v !== undefined));
      return changed(a, command.now, { state: { ...s, ...defined } });
    }
    case "replaceTopics":
      onCurrentRun(a, command.run_id);
      return changed(a, command.now, { topics: command.topics });
    case "appendEvent": {
      onCurrentRun(a, command.run_id);
      const entry: LoggedEvent = { event: command.event, data: command.data };
      // A step that runs again appends the same entry again: it was already announced.
      if (loaded(a.events, "event log").some((e) => isDeepStrictEqual(e, entry))) return [];
      return [
        {
          type: "transcript.event.appended",
          data: { transcript_id: s.id, user_id: s.user_id, run_id: command.run_id, event: command.event, data: command.data },
        },
      ];
    }
    case "complete": {
      onCurrentRun(a, command.run_id);
      if (a.completed_run_id === command.run_id) return [];
      const next: TranscriptState = { ...s, status: "ended", error: null };
      const content = completedContent(s.webvtt, loaded(a.topics, "topics"));
      const at = command.now.toISOString();
      const completion = changed(
        a,
        command.now,
        { state: next },
        {
          always: true,
          stateEvent: ({ webvtt: _carriedCompressed, ...transcript }) => ({
            type: "transcript.completed",
            data: { transcript, ...content, run_id: command.run_id, completed_at: at },
          }),
        },
      );
      return [...completion, ...statusLogged(s, next, command.run_id)];
    }
    case "fail": {
      onCurrentRun(a, command.run_id);
      const next = failed(s, command.reason);
      if (!next) throw new RuleError("conflict", "the transcript ended: a later failure does not apply", "ended");
      const events = changed(a, command.now, { state: next });
      return events.length ? [...events, ...statusLogged(s, next, command.run_id)] : [];
    }
    case "startLiveRecording": {
      const next = recordingStarted(a);
      const started: TranscriptEvent[] = [
        ...changed(a, command.now, { state: next, topics: [] }),
        { type: "run.started", data: { run_id: command.run_id } },
      ];
      return [...started, ...statusLogged(s, next, command.run_id)];
    }
    case "handOverLiveRecording": {
      const next = recordingFlushed(a, command.run_id);
      if (!next) throw new RuleError("conflict", `live session ${command.run_id} is not the transcript's current run`, "stale_run");
      const attached: TranscriptEvent = { type: "recording.attached", data: { recording: command.recording } };
      return [...changed(a, command.now, { state: next }), attached, ...statusLogged(s, next, command.run_id)];
    }
    case "failLiveRecording": {
      const next = recordingFailed(a, command.run_id, command.reason);
      if (!next)
        throw new RuleError("conflict", `live session ${command.run_id} is not the transcript's current run, or it ended`, "stale_run");
      return [...changed(a, command.now, { state: next }), ...statusLogged(s, next, command.run_id)];
    }
  }
}

/** The aggregate a transcript.created starts: nothing processed, no run. */
function created(state: TranscriptState): Aggregate {
  return { state, topics: [], events: [], current_run_id: null, completed_run_id: null, recording_source: null };
}

function withTopic(topics: TopicRecord[] | null, position: number, topic: TopicRecord): TopicRecord[] {
  const next = [...loaded(topics, "topics")];
  next[position] = topic;
  return next;
}

/**
 * The state a destroyed transcript leaves on the bus: its history there is purged (shred.ts) and
 * this tombstone must hold nothing that was said or written (issue 15.13).
 */
function contentFree(s: TranscriptState): TranscriptState {
  return { ...s, name: "", title: null, short_summary: null, long_summary: null, action_items: null, participants: [], webvtt: null };
}

/** null: the transcript does not exist (never created, or destroyed). */
export function evolve(current: Aggregate | null, event: TranscriptEvent): Aggregate | null {
  if (event.type === "transcript.created") return created(event.data);
  if (event.type === "transcript.destroyed") return null;
  const a = exists(current);
  switch (event.type) {
    case "transcript.updated": {
      // Unpacks the WebVTT decide() just packed (a few ms for hours of speech): the event is the one record of the change.
      const change = transcriptChange(event.data);
      return { ...a, state: { ...change, webvtt: change.webvtt === undefined ? a.state.webvtt : change.webvtt } };
    }
    case "transcript.completed":
      return { ...a, state: { ...event.data.transcript, webvtt: a.state.webvtt }, completed_run_id: event.data.run_id };
    // A topic change without a state change (a retitled topic) still moves the version on.
    case "transcript.topics.cleared":
      return { ...a, state: { ...a.state, version: event.data.version }, topics: [] };
    case "transcript.topic.upserted":
      return {
        ...a,
        state: { ...a.state, version: event.data.version },
        topics: withTopic(a.topics, event.data.position, event.data.topic),
      };
    case "transcript.event.appended":
      // Not loaded: the store appends the entry without reading the log.
      return a.events === null ? a : { ...a, events: [...a.events, { event: event.data.event, data: event.data.data }] };
    case "transcript.lifecycle.changed":
      return a;
    case "recording.attached":
      return { ...a, recording_source: event.data.recording };
    case "run.started":
      return { ...a, current_run_id: event.data.run_id, events: [] };
  }
}

export const transcriptDecider: Decider<TranscriptCommand, TranscriptEvent, Aggregate | null> = { decide, evolve, initialState: null };
