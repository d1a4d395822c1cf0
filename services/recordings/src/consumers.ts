// Event consumers: platform recordings from the MEETINGS stream, and this service's copy of the
// transcripts (access rules, links to recordings, zip metadata) from the TRANSCRIPTS stream.
import { STREAMS, eventToken, makeEvent } from "@scribe/contracts";
import { emit, type ServiceRuntime } from "@scribe/kit";
import type { RecordingsConfig } from "./config";
import { planPlatformRecording } from "./domain/recordings";
import { requestTranscriptPurge } from "./destroyed";
import { clearTopics, insertRecording, linkKnownTranscript, linkRecordingToTranscript, transcriptCopy, upsertTopic } from "./store";

export const SOURCE = "scribe/recordings";

export function registerConsumers(rt: ServiceRuntime<RecordingsConfig>): void {
  rt.consume({
    name: "recordings.meetings",
    stream: "MEETINGS",
    // Only this type: other MEETINGS events are not this consumer's business (one token per type).
    filterSubject: `${STREAMS.MEETINGS.context}.${eventToken("recording.available")}.*`,
    // Side effects (deletions, pipelines started downstream): only recordings announced from now on.
    deliverPolicy: "new",
    handlers: {
      "recording.available": async (tx, ev, { log }) => {
        const now = rt.clock();
        const plan = planPlatformRecording(ev.data, now);
        // A second delivery of the same platform recording (webhook and poll, or a redelivery with a
        // new event id) changes nothing and starts nothing: the reference re-runs the pipeline here.
        if (!(await insertRecording(tx, plan.recording, plan.files))) {
          log.info({ recordingId: ev.data.recording_id }, "recording already known; duplicate ignored");
          return;
        }
        await linkKnownTranscript(tx, plan.recording.id);
        if (plan.ready) await emit(tx, makeEvent("recording.ready", plan.ready, { source: SOURCE, time: now }));
        else log.warn({ recordingId: ev.data.recording_id, kind: ev.data.kind }, "recording has no audio to transcribe");
      },
    },
  });

  rt.consume({
    name: "recordings.transcripts",
    stream: "TRANSCRIPTS",
    deliverPolicy: "all",
    handlers: {
      "transcript.created": async (tx, ev) => {
        await transcriptCopy.apply(tx, ev.data, false, rt.clock());
        if (ev.data.recording_id) await linkRecordingToTranscript(tx, ev.data.recording_id, ev.data.id);
      },
      "transcript.updated": async (tx, ev) => {
        await transcriptCopy.apply(tx, ev.data, false, rt.clock());
        if (ev.data.recording_id) await linkRecordingToTranscript(tx, ev.data.recording_id, ev.data.id);
      },
      "transcript.completed": async (tx, ev) => void (await transcriptCopy.apply(tx, ev.data.transcript, false, rt.clock())),
      "transcript.topic.upserted": async (tx, ev) =>
        upsertTopic(tx, ev.data.transcript_id, ev.data.position, ev.data.version, ev.data.topic),
      "transcript.topics.cleared": async (tx, ev) => clearTopics(tx, ev.data.transcript_id, ev.data.version),
      // Everything of it goes: files in every storage, then the recording rows (see destroyed.ts).
      "transcript.destroyed": async (tx, ev) =>
        requestTranscriptPurge(tx, ev.data, rt.config.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME, rt.clock()),
    },
  });
}
