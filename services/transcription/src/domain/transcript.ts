// Pure rules of the transcript aggregate: creation defaults, API patches, participants and speaker
// edits, the status rules of a run, and what a reprocess resets (behaviour-transcripts-pipelines
// §1.5, §1.8, §5.6, §9). No I/O; the decider (decider.ts) puts them together into events.
import type { ErrorKind } from "@scribe/kit";
import type {
  CreateTranscript,
  PipelineEventName,
  RecordingReady,
  StoredParticipant,
  TopicRecord,
  TranscriptState,
  UpdateTranscript,
  Word,
} from "@scribe/contracts";

/** A realtime event log entry of the current run. */
export interface LoggedEvent {
  event: PipelineEventName;
  data: Record<string, unknown>;
}

/** The aggregate as stored: the state events carry, plus what only the write side keeps. */
export interface Aggregate {
  state: TranscriptState;
  /** null when not loaded: only the commands that read topics load them (`loads` in decider.ts). */
  topics: TopicRecord[] | null;
  /** The current run's event log, or the part of it a command reads (`loads`); null when not loaded, like topics. */
  events: LoggedEvent[] | null;
  current_run_id: string | null;
  completed_run_id: string | null;
  recording_source: RecordingReady | null;
}

/**
 * Why the aggregate refuses a command, in the kit's error kinds (only the gateway maps kinds to
 * statuses): `bad_request` a rule says no, `not_found` a part named by the command is missing,
 * `conflict` a call from a pipeline that no longer applies; `late` then says which (`stale_run` a
 * run that is no longer the transcript's current one, `ended` a failure reported after the run
 * completed), so the pipeline port can drop such calls quietly.
 */
export type RefusalKind = Extract<ErrorKind, "bad_request" | "not_found" | "conflict">;
export type LateCall = "stale_run" | "ended";

export class RuleError extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly late?: LateCall,
  ) {
    super(message);
    this.name = "RuleError";
  }
}

/** "Transcript 2026-11-21 23:59:00" (UTC), the reference's default name. */
export function defaultName(now: Date): string {
  return `Transcript ${now.toISOString().slice(0, 19).replace("T", " ")}`;
}

/** A new transcript: everything loaded, and empty. */
export type NewAggregate = Aggregate & { topics: TopicRecord[]; events: LoggedEvent[] };

export function newAggregate(init: {
  id: string;
  now: Date;
  user_id: string | null;
  name: string;
  source_kind: TranscriptState["source_kind"];
  source_language?: string;
  target_language?: string;
  share_mode?: TranscriptState["share_mode"];
  room_id?: string | null;
  meeting_id?: string | null;
  recording_id?: string | null;
  participants?: StoredParticipant[];
}): NewAggregate {
  const at = init.now.toISOString();
  return {
    state: {
      id: init.id,
      version: 1,
      name: init.name,
      status: "idle",
      error: null,
      locked: false,
      duration: 0,
      created_at: at,
      updated_at: at,
      title: null,
      short_summary: null,
      long_summary: null,
      action_items: null,
      participants: init.participants ?? [],
      source_language: init.source_language ?? "en",
      target_language: init.target_language ?? "en",
      reviewed: false,
      audio_location: "local",
      audio_deleted: null,
      user_id: init.user_id,
      share_mode: init.share_mode ?? "private",
      source_kind: init.source_kind,
      meeting_id: init.meeting_id ?? null,
      recording_id: init.recording_id ?? null,
      room_id: init.room_id ?? null,
      webvtt: null,
      deleted_at: null,
    },
    topics: [],
    events: [],
    current_run_id: null,
    completed_run_id: null,
    recording_source: null,
  };
}

/** POST /v1/transcripts: api.md §2.9 defaults (source_kind live, status idle, private). */
export function createdByApi(body: CreateTranscript, id: string, userId: string | null, now: Date): NewAggregate {
  return newAggregate({
    id,
    now,
    user_id: userId,
    name: body.name,
    source_kind: body.source_kind ?? "live",
    source_language: body.source_language,
    target_language: body.target_language,
  });
}

/**
 * PATCH /v1/transcripts/{id}: exactly the keys present (null on a field that cannot be null leaves it
 * as it is); participants without id get one now (ambiguity 21).
 */
export function applyApiPatch(s: TranscriptState, patch: UpdateTranscript, newId: () => string): TranscriptState {
  const next = { ...s };
  if (patch.name != null) next.name = patch.name;
  if (patch.locked != null) next.locked = patch.locked;
  if (patch.title !== undefined) next.title = patch.title;
  if (patch.short_summary !== undefined) next.short_summary = patch.short_summary;
  if (patch.long_summary !== undefined) next.long_summary = patch.long_summary;
  if (patch.share_mode != null) next.share_mode = patch.share_mode;
  if (patch.reviewed != null) next.reviewed = patch.reviewed;
  if (patch.audio_deleted !== undefined) next.audio_deleted = patch.audio_deleted;
  if (patch.participants !== undefined) {
    next.participants = (patch.participants ?? []).map((p) => ({
      id: p.id ?? newId(),
      speaker: p.speaker,
      name: p.name,
      user_id: p.user_id ?? null,
    }));
  }
  return next;
}

const SPEAKER_TAKEN = "Speaker already assigned";

export function addParticipant(ps: StoredParticipant[], p: { id: string; name: string; speaker: number | null }): StoredParticipant[] {
  if (p.speaker !== null && ps.some((o) => o.speaker === p.speaker)) throw new RuleError("bad_request", SPEAKER_TAKEN);
  return [...ps, { id: p.id, name: p.name, speaker: p.speaker, user_id: null }];
}

/**
 * Only keys present change (a null name too is "unchanged": a name is never null). The speaker check looks at a given, non-null speaker only: the
 * reference's check of an omitted speaker as null against others is a quirk (behaviour §11.7).
 */
export function updateParticipant(
  ps: StoredParticipant[],
  id: string,
  patch: { name?: string | null; speaker?: number | null },
): { participants: StoredParticipant[]; participant: StoredParticipant } {
  if (patch.speaker !== undefined && patch.speaker !== null && ps.some((o) => o.id !== id && o.speaker === patch.speaker)) {
    throw new RuleError("bad_request", SPEAKER_TAKEN);
  }
  const current = ps.find((p) => p.id === id);
  if (!current) throw new RuleError("not_found", "Participant not found");
  const updated: StoredParticipant = {
    ...current,
    ...(patch.name !== undefined && patch.name !== null ? { name: patch.name } : {}),
    ...(patch.speaker !== undefined ? { speaker: patch.speaker } : {}),
  };
  return { participants: ps.map((p) => (p.id === id ? updated : p)), participant: updated };
}

export function removeParticipant(ps: StoredParticipant[], id: string): StoredParticipant[] {
  return ps.filter((p) => p.id !== id);
}

function relabel(topics: TopicRecord[], f: (w: Word) => number): TopicRecord[] {
  return topics.map((t) => ({ ...t, words: t.words.map((w) => ({ ...w, speaker: f(w) })) }));
}

/** §9.8 assign: by speaker number, or by participant (who gets the lowest speaker no word uses). */
export function assignSpeaker(
  topics: TopicRecord[],
  ps: StoredParticipant[],
  a: { speaker?: number | null; participant?: string | null; timestamp_from: number; timestamp_to: number },
): { topics: TopicRecord[]; participants: StoredParticipant[] } {
  const bySpeaker = a.speaker !== undefined && a.speaker !== null;
  const byParticipant = a.participant !== undefined && a.participant !== null;
  if (!bySpeaker && !byParticipant) throw new RuleError("bad_request", "Either speaker or participant must be provided");
  if (bySpeaker && byParticipant) throw new RuleError("bad_request", "Only one of speaker or participant must be provided");
  let speaker: number;
  let participants = ps;
  if (bySpeaker) speaker = a.speaker as number;
  else {
    const p = ps.find((x) => x.id === a.participant);
    if (!p) throw new RuleError("not_found", "Participant not found");
    if (p.speaker !== null) speaker = p.speaker;
    else {
      const used = new Set(topics.flatMap((t) => t.words.map((w) => w.speaker)));
      speaker = 0;
      while (used.has(speaker)) speaker++;
      participants = ps.map((x) => (x.id === p.id ? { ...x, speaker } : x));
    }
  }
  const inRange = (w: Word) => a.timestamp_from <= w.start && w.start <= a.timestamp_to;
  return { topics: relabel(topics, (w) => (inRange(w) ? speaker : w.speaker)), participants };
}

/** §9.8 merge: relabel `from` to `to`, unless both labels belong to participants. */
export function mergeSpeakers(topics: TopicRecord[], ps: StoredParticipant[], from: number, to: number): TopicRecord[] {
  const claimed = (n: number) => ps.some((p) => p.speaker === n);
  if (claimed(from) && claimed(to)) throw new RuleError("bad_request", "Both speakers are assigned to participants");
  return relabel(topics, (w) => (w.speaker === from ? to : w.speaker));
}

/** §9.15 validation of POST /process (after READ); null when processing may start. */
export function processRefusal(a: Aggregate): string | null {
  if (a.state.locked) return "Recording is locked";
  if (a.recording_source === null) return "Recording is not ready for processing";
  return null;
}

/**
 * What a fresh run resets before it starts (§5.6): the event log and topics always; a multitrack
 * run also rebuilds participants (from its tracks) and duration. Everything else is kept.
 */
export function resetForRun(a: Aggregate, kind: RecordingReady["kind"], runId: string): Aggregate {
  const state = { ...a.state };
  if (kind === "multitrack") {
    state.participants = [];
    state.duration = 0;
  }
  return { ...a, state, topics: [], events: [], current_run_id: runId };
}

/** First step of a run: processing, error cleared. */
export function markedProcessing(s: TranscriptState): TranscriptState {
  return { ...s, status: "processing", error: null };
}

/** A run's failure: error with the reason, never over `ended` (§5.5). Null when it must not apply. */
export function failed(s: TranscriptState, reason: string): TranscriptState | null {
  if (s.status === "ended") return null;
  return { ...s, status: "error", error: reason };
}
