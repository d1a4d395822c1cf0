// Committing what the transcript decider (domain/decider.ts) decided, in the caller's transaction or
// (persistIfUnchanged) in one statement guarded by the row's version: the aggregate the events evolve
// to is saved (only the parts they touched) and the published ones go to the outbox. Nothing here
// decides: no events, no write.
import { makeEvent, type OutgoingEvent } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { decide, evolve, isPublished, type TranscriptCommand, type TranscriptEvent } from "./domain/decider";
import type { Aggregate } from "./domain/transcript";
import {
  deleteTranscript,
  emitEvents,
  insertTranscript,
  saveChanges,
  saveIfUnchanged,
  type ChangedParts,
  type LogEntry,
  type Snapshot,
} from "./store";

export const SOURCE = "scribe/transcription";

function changedParts(events: readonly TranscriptEvent[]): ChangedParts {
  const parts: ChangedParts = {
    topics: false,
    appendedEvents: [],
    resetEvents: false,
    currentRun: false,
    completedRun: false,
    recordingSource: false,
  };
  for (const e of events) {
    if (e.type === "transcript.topics.cleared" || e.type === "transcript.topic.upserted") parts.topics = true;
    else if (e.type === "transcript.event.appended")
      parts.appendedEvents.push({ run_id: e.data.run_id, event: e.data.event, data: e.data.data } satisfies LogEntry);
    else if (e.type === "run.started") {
      // The new run's log: what was appended before in these events goes with the old one (as in evolve).
      parts.resetEvents = true;
      parts.appendedEvents = [];
      parts.currentRun = true;
    } else if (e.type === "transcript.completed") parts.completedRun = true;
    else if (e.type === "recording.attached") parts.recordingSource = true;
  }
  return parts;
}

const published = (events: readonly TranscriptEvent[], now: Date): OutgoingEvent[] =>
  events.filter(isPublished).map((e) => makeEvent(e.type, e.data, { source: SOURCE, time: now }));

/**
 * Commit `events` decided on `before` (loaded `for update` in `tx`; null for a creation), announced at
 * `now` (the service's clock). Returns the aggregate as stored now.
 */
export async function persist(tx: Db, before: Aggregate | null, events: readonly TranscriptEvent[], now: Date): Promise<Aggregate | null> {
  if (events.length === 0) return before;
  const after = events.reduce<Aggregate | null>(evolve, before);
  const written = before
    ? after
      ? saveChanges(tx, before, after, changedParts(events))
      : deleteTranscript(tx, before.state.id)
    : insertTranscript(tx, after!);
  // Both statements are sent at once (one round trip).
  await Promise.all([written, emitEvents(tx, published(events, now))]);
  return after;
}

/**
 * Commit `events` (which change the transcript, neither create nor destroy it) decided on `before`,
 * read unlocked, in one statement and only if the row is still as read (`saveIfUnchanged`). Returns
 * the transcript as stored now; null when someone wrote it since: nothing was committed, decide again.
 */
export async function persistIfUnchanged(
  db: Db,
  before: Snapshot,
  events: readonly TranscriptEvent[],
  now: Date,
): Promise<Snapshot | null> {
  const after = events.reduce<Aggregate | null>(evolve, before.aggregate);
  if (!after) throw new Error("persistIfUnchanged: a transcript's destruction is committed under its row lock (persist)");
  const rowVersion = await saveIfUnchanged(db, before, after, changedParts(events), published(events, now));
  return rowVersion === null ? null : { aggregate: after, rowVersion };
}

/** Decide `command` on the locked aggregate and commit the outcome; refusals (RuleError) propagate. */
export async function execute(
  tx: Db,
  a: Aggregate | null,
  command: TranscriptCommand,
  now: Date,
): Promise<{ aggregate: Aggregate | null; events: TranscriptEvent[] }> {
  const events = decide(command, a);
  return { aggregate: await persist(tx, a, events, now), events };
}

/** A new transcript (built with newAggregate): stored and announced (and, when owned, to its owner's user socket). */
export async function persistNew(tx: Db, a: Aggregate, now: Date): Promise<Aggregate> {
  const { aggregate } = await execute(tx, null, { type: "create", transcript: a.state }, now);
  return aggregate!;
}
