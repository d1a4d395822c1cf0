// Event consumers: recordings ready to transcribe (RECORDINGS). Each runs in the inbox transaction, so a redelivered event is applied
// once; a second, different event for the same recording starts nothing either.
import { randomUUID } from "node:crypto";
import { STREAMS, eventToken, type EventType, type RecordingReady } from "@scribe/contracts";
import type { Logger, ServiceRuntime, Tx } from "@scribe/kit";
import { execute, persistNew } from "./changes";
import { newAggregate, type Aggregate } from "./domain/transcript";
import { startProcessing } from "./processing";
import { loadTranscript, transcriptIdOfRecording } from "./store";

const only = (stream: keyof typeof STREAMS, type: EventType) => `${STREAMS[stream].context}.${eventToken(type)}.*`;

/** A platform recording's transcript (behaviour §3.2–3.3 defaults): owned by the room's owner. */
function forPlatformRecording(r: RecordingReady, now: Date): Aggregate {
  return newAggregate({
    id: randomUUID(),
    now,
    user_id: r.owner_user_id,
    name: "",
    source_kind: "room",
    share_mode: "semi-private",
    room_id: r.room_id,
    meeting_id: r.meeting_id,
    recording_id: r.recording_id,
    participants: r.participants.map((p) => ({ id: p.participant_id ?? randomUUID(), name: p.name, speaker: null, user_id: p.user_id })),
  });
}

export async function onRecordingReady(tx: Tx, r: RecordingReady, log: Logger, now: Date): Promise<void> {
  const ctx = { recordingId: r.recording_id, source: r.source, transcriptId: r.transcript_id };
  // Processing starts with a fresh run, which clears the topics: they are loaded.
  let a: Aggregate | null;
  if (r.transcript_id) {
    a = await loadTranscript(tx, r.transcript_id, { forUpdate: true, events: false });
    if (!a) return void log.warn(ctx, "recording.ready for a transcript this service does not have; ignored");
  } else {
    const id = await transcriptIdOfRecording(tx, r.recording_id);
    a = id ? await loadTranscript(tx, id, { forUpdate: true, events: false }) : null;
    if (!a) {
      a = await persistNew(tx, forPlatformRecording(r, now), now);
      log.info({ ...ctx, transcriptId: a.state.id }, "transcript created for a platform recording");
    }
  }
  if (a.state.deleted_at !== null)
    return void log.info({ ...ctx, transcriptId: a.state.id }, "transcript is deleted; recording not processed");
  if (a.recording_source?.recording_id === r.recording_id && a.current_run_id) {
    return void log.info(
      { ...ctx, transcriptId: a.state.id, runId: a.current_run_id },
      "recording already being processed; duplicate ignored",
    );
  }
  const { aggregate } = await execute(tx, a, { type: "attachRecording", recording: r, now }, now);
  await startProcessing(tx, aggregate!, log, `recording ${r.recording_id} ready`, now);
}

export function registerConsumers(rt: ServiceRuntime<unknown>): void {
  rt.consume({
    name: "transcription.recordings",
    stream: "RECORDINGS",
    filterSubject: only("RECORDINGS", "recording.ready"),
    // Starts processing: only recordings announced from now on, never the whole history.
    deliverPolicy: "new",
    handlers: { "recording.ready": (tx, ev, { log }) => onRecordingReady(tx, ev.data, log, rt.clock()) },
  });
}
