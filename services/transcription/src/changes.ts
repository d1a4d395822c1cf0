// Persisting a change of the aggregate and announcing it, in the caller's transaction: version bump,
// WebVTT regenerated from topics, and the TRANSCRIPTS events the read side needs. A change that
// changes nothing writes and emits nothing, which makes every command and port call idempotent.
import {
  makeEvent,
  topicsToWebvtt,
  wordsToWebvtt,
  type OutgoingEvent,
  type PipelineEventName,
  type TopicRecord,
  type TranscriptState,
} from "@scribe/contracts";
import { emit, type Db } from "@scribe/kit";
import type { Aggregate } from "./domain/transcript";
import { insertTranscript, saveTranscript } from "./store";

export const SOURCE = "scribe/transcription";

/** JSON with sorted keys: jsonb does not keep key order, so plain stringify would see changes that are not. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val && typeof val === "object" && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

function stateBody(s: TranscriptState): Omit<TranscriptState, "version" | "updated_at"> {
  const { version: _v, updated_at: _u, ...rest } = s;
  return rest;
}

export interface PersistOptions {
  now?: Date;
  /** Instead of transcript.updated (e.g. transcript.completed); called with the new state. */
  stateEvent?: (s: TranscriptState) => OutgoingEvent;
  /** Emit the state event even when the state did not change (completion of a new run). */
  forceStateEvent?: boolean;
}

/**
 * Write `next` over `before` (loaded `for update` in `tx`). Topics: a different list (ids or
 * length) is announced as cleared + every topic; the same ids with other content as the changed
 * topics only. Returns the aggregate as stored (version bumped when anything changed).
 */
export async function persist(tx: Db, before: Aggregate, next: Aggregate, opts: PersistOptions = {}): Promise<{ aggregate: Aggregate; changed: boolean }> {
  const topicsChanged = !same(before.topics, next.topics);
  let state = next.state;
  if (topicsChanged) state = { ...state, webvtt: topicsToWebvtt(next.topics) };
  const stateChanged = !same(stateBody(before.state), stateBody(state));
  const internalChanged =
    !same(before.events, next.events) ||
    before.current_run_id !== next.current_run_id ||
    before.completed_run_id !== next.completed_run_id ||
    !same(before.recording_source, next.recording_source);
  if (!topicsChanged && !stateChanged && !internalChanged && !opts.forceStateEvent) return { aggregate: before, changed: false };

  // Every event gets the next version, so a reader waiting for the last one has seen them all
  // (and the projection drops topics older than a clear: the topics come after it).
  const events: OutgoingEvent[] = [];
  let version = before.state.version;
  if (topicsChanged) {
    const sameIds = before.topics.length === next.topics.length && before.topics.every((t, i) => t.id === next.topics[i]!.id);
    if (!sameIds) events.push(makeEvent("transcript.topics.cleared", { transcript_id: state.id, version: ++version }, { source: SOURCE }));
    next.topics.forEach((topic, position) => {
      if (sameIds && same(before.topics[position], topic)) return;
      events.push(makeEvent("transcript.topic.upserted", { transcript_id: state.id, version: ++version, position, topic }, { source: SOURCE }));
    });
  }
  const announceState = stateChanged || opts.forceStateEvent;
  if (announceState) version++;
  const now = (opts.now ?? new Date()).toISOString();
  if (version !== before.state.version) state = { ...state, version, updated_at: now };
  if (announceState) {
    events.push(opts.stateEvent ? opts.stateEvent(state) : makeEvent("transcript.updated", state, { source: SOURCE }));
  }
  const stored: Aggregate = { ...next, state };
  await saveTranscript(tx, stored);
  if (events.length) await emit(tx, events);
  return { aggregate: stored, changed: true };
}

/** A new transcript: stored and announced (and, when owned, to its owner's user socket). */
export async function persistNew(tx: Db, a: Aggregate): Promise<void> {
  await insertTranscript(tx, a);
  const events: OutgoingEvent[] = [makeEvent("transcript.created", a.state, { source: SOURCE })];
  if (a.state.user_id) {
    events.push(makeEvent("transcript.lifecycle.changed", { transcript_id: a.state.id, user_id: a.state.user_id, action: "created" }, { source: SOURCE }));
  }
  await emit(tx, events);
}

/** One entry of the realtime event log, for the transcript's sockets (and the owner's for some). */
export function appended(s: TranscriptState, runId: string | null, event: PipelineEventName, data: Record<string, unknown>): OutgoingEvent {
  return makeEvent("transcript.event.appended", { transcript_id: s.id, user_id: s.user_id, run_id: runId, event, data }, { source: SOURCE });
}

/** The webhook's view of topics: no words, each with its own WebVTT. */
export function completedTopics(topics: TopicRecord[]) {
  return topics.map((t) => ({ id: t.id, title: t.title, summary: t.summary, timestamp: t.timestamp, duration: t.duration, webvtt: wordsToWebvtt(t.words) }));
}
