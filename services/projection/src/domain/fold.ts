// The read model's fold of TRANSCRIPTS events, pure: the current row and one event give the new row,
// or "unchanged" when the event is stale. store.ts applies the same rules in one SQL statement per
// event (test/fold.test.ts checks the SQL against this fold on every order of an event history).
//
// Every rule is "newer version wins": full states by `state_version`, the WebVTT by `webvtt_version`
// (transcript.updated carries it only when it changed, transcript.completed v2 never in its state), topics per position by their version behind
// the last clear (`topics_reset_version`), and a destroyed transcript (a tombstone)
// takes nothing more, so applying events twice or out of order converges to the same row.
import { transcriptChange, type TopicRecord, type TranscriptChange, type TranscriptState, type TranscriptUpdated } from "@scribe/contracts";

export interface TopicSlot {
  version: number;
  topic: TopicRecord;
}

export interface TranscriptRow {
  id: string;
  /** Highest version of any event applied (state, topics): read-your-writes waits on it. */
  version: number;
  /** Version of the full state last applied. */
  state_version: number;
  /** Version of the last state that carried the WebVTT (a newer state may leave it out). */
  webvtt_version: number;
  /** Version of the last topics.cleared: topic events up to it are stale. */
  topics_reset_version: number;
  destroyed_at: string | null;
  state: TranscriptState;
  /** By position. */
  topics: Record<number, TopicSlot>;
}

export type TranscriptFoldEvent =
  | { type: "transcript.created"; time: string; data: TranscriptState }
  | { type: "transcript.updated"; time: string; data: TranscriptUpdated }
  | { type: "transcript.completed"; time: string; data: { transcript: TranscriptUpdated } }
  | { type: "transcript.destroyed"; time: string; data: { transcript: TranscriptState } }
  | {
      type: "transcript.topic.upserted";
      time: string;
      data: { transcript_id: string; version: number; position: number; topic: TopicRecord };
    }
  | { type: "transcript.topics.cleared"; time: string; data: { transcript_id: string; version: number } };

/** `unchanged`: stale, nothing to write. `not_yet_known`: a topic event before its transcript, retried later. */
export type FoldResult = TranscriptRow | "unchanged" | "not_yet_known";

/** What a destroyed transcript keeps: ids, versions, times, ownership; none of what it held. */
export function tombstoneOf(s: TranscriptState, eventTime: string): TranscriptState {
  return {
    ...s,
    name: "",
    title: null,
    short_summary: null,
    long_summary: null,
    action_items: null,
    participants: [],
    webvtt: null,
    deleted_at: s.deleted_at ?? eventTime,
  };
}

function withState(row: TranscriptRow | null, s: TranscriptChange, destroyedAt: string | null): FoldResult {
  const carriesWebvtt = s.webvtt !== undefined;
  if (!row)
    return {
      id: s.id,
      version: s.version,
      state_version: s.version,
      webvtt_version: carriesWebvtt ? s.version : 0,
      topics_reset_version: 0,
      destroyed_at: destroyedAt,
      state: { ...s, webvtt: s.webvtt ?? null },
      topics: {},
    };
  if (row.destroyed_at !== null) return "unchanged";
  const newerState = row.state_version < s.version;
  const newerWebvtt = carriesWebvtt && row.webvtt_version < s.version;
  if (!newerState && !newerWebvtt) return "unchanged";
  const webvtt = newerWebvtt ? s.webvtt! : row.state.webvtt;
  return {
    ...row,
    state: { ...(newerState ? s : row.state), webvtt },
    state_version: Math.max(row.state_version, s.version),
    webvtt_version: newerWebvtt ? s.version : row.webvtt_version,
    version: Math.max(row.version, s.version),
    destroyed_at: destroyedAt,
    topics: destroyedAt ? {} : row.topics,
  };
}

export function foldTranscript(row: TranscriptRow | null, ev: TranscriptFoldEvent): FoldResult {
  switch (ev.type) {
    case "transcript.created":
      return withState(row, ev.data, null);
    case "transcript.updated":
      return withState(row, transcriptChange(ev.data), null);
    case "transcript.completed":
      return withState(row, ev.data.transcript, null);
    case "transcript.destroyed":
      return withState(row, tombstoneOf(ev.data.transcript, ev.time), ev.time);
    case "transcript.topic.upserted": {
      if (!row) return "not_yet_known";
      const { version, position, topic } = ev.data;
      if (row.destroyed_at !== null || row.topics_reset_version >= version) return "unchanged";
      if ((row.topics[position]?.version ?? 0) >= version) return "unchanged";
      return { ...row, version: Math.max(row.version, version), topics: { ...row.topics, [position]: { version, topic } } };
    }
    case "transcript.topics.cleared": {
      if (!row) return "not_yet_known";
      const { version } = ev.data;
      if (row.destroyed_at !== null || row.topics_reset_version >= version) return "unchanged";
      const kept = Object.fromEntries(Object.entries(row.topics).filter(([, slot]) => slot.version >= version));
      return { ...row, topics_reset_version: version, version: Math.max(row.version, version), topics: kept };
    }
  }
}
