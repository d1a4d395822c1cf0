// Committing what the transcript decider (domain/decider.ts) decided, in the caller's transaction:
// the aggregate the events evolve to is saved (only the parts they touched) and the published ones
// go to the outbox. Nothing here decides: no events, no write.
import { makeEvent, type OutgoingEvent } from "@scribe/contracts";
import type { Db } from "@scribe/kit";
import { decide, evolve, isPublished, type TranscriptCommand, type TranscriptEvent } from "./domain/decider";
import type { Aggregate, LoggedEvent } from "./domain/transcript";
import { deleteTranscript, emitEvents, insertTranscript, saveChanges, type ChangedParts } from "./store";

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
      parts.appendedEvents.push({ event: e.data.event, data: e.data.data } satisfies LoggedEvent);
    else if (e.type === "run.started") {
      parts.resetEvents = true;
      parts.currentRun = true;
    } else if (e.type === "transcript.completed") parts.completedRun = true;
    else if (e.type === "recording.attached") parts.recordingSource = true;
  }
  return parts;
}

/**
 * Commit `events` decided on `before` (loaded `for update` in `tx`; null for a creation), announced at
 * `now` (the service's clock). Returns the aggregate as stored now.
 */
export async function persist(tx: Db, before: Aggregate | null, events: readonly TranscriptEvent[], now: Date): Promise<Aggregate | null> {
  if (events.length === 0) return before;
  const after = events.reduce<Aggregate | null>(evolve, before);
  const published: OutgoingEvent[] = events.filter(isPublished).map((e) => makeEvent(e.type, e.data, { source: SOURCE, time: now }));
  const written = before
    ? after
      ? saveChanges(tx, before, after, changedParts(events))
      : deleteTranscript(tx, before.state.id)
    : insertTranscript(tx, after!);
  // Both statements are sent at once (one round trip); they run in this order, so the outbox reads the row as written.
  await Promise.all([written, emitEvents(tx, (after ?? before)!.state.id, published)]);
  return after;
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
