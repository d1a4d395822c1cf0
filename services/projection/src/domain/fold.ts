// The read model's fold of TRANSCRIPTS events, pure: the current row and one event give the new row,
// or "unchanged" when the event is stale. store.ts applies the same rules in one SQL statement per
// event (test/fold.test.ts checks the SQL against this fold on every order of an event history).
//
// Every rule is "newer version wins": full states by `state_version`, topics per position by their
// version behind the last clear (`topics_reset_version`), and a destroyed transcript (a tombstone)
// takes nothing more, so applying events twice or out of order converges to the same row.
import type { TopicRecord, TranscriptState } from "@scribe/contracts";

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
  /** Version of the last topics.cleared: topic events up to it are stale. */
  topics_reset_version: number;
  destroyed_at: string | null;
  state: TranscriptState;
  /** By position. */
  topics: Record<number, TopicSlot>;
}

export type TranscriptFoldEvent =
  | { type: "transcript.created" | "transcript.updated"; time: string; data: TranscriptState }
  | { type: "transcript.completed"; time: string; data: { transcript: TranscriptState } }
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

function withState(row: TranscriptRow | null, s: TranscriptState, destroyedAt: string | null): FoldResult {
  if (!row)
    return {
      id: s.id,
      version: s.version,
      state_version: s.version,
      topics_reset_version: 0,
      destroyed_at: destroyedAt,
      state: s,
      topics: {},
    };
  if (row.state_version >= s.version || row.destroyed_at !== null) return "unchanged";
  return {
    ...row,
    state: s,
    state_version: s.version,
    version: Math.max(row.version, s.version),
    destroyed_at: destroyedAt,
    topics: destroyedAt ? {} : row.topics,
  };
}

export function foldTranscript(row: TranscriptRow | null, ev: TranscriptFoldEvent): FoldResult {
  switch (ev.type) {
    case "transcript.created":
    case "transcript.updated":
      return withState(row, ev.data, null);
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
