// Sizes of a long transcript's largest events (issue 20) against NATS's default 1 MB max_payload:
// transcript.completed as v2 carries it (the WebVTT once, compressed; topics as parts of it) next to
// v1 (the WebVTT, and every topic's again) as baseline, and the transcript.updated that carries a new
// WebVTT, now the largest. The densest speech: a cue per word (services/transcription/test/long-transcript.ts).
import { makeEvent, wordsToWebvtt, type TopicRecord, type TranscriptState } from "@scribe/contracts";
import { decide, type TranscriptEvent } from "../services/transcription/src/domain/decider";
import { newAggregate, type Aggregate } from "../services/transcription/src/domain/transcript";
import { topicsOfMeeting } from "../services/transcription/test/long-transcript";
import { report } from "./report";

const MAX_PAYLOAD = 1024 * 1024;
const bytes = (e: TranscriptEvent) =>
  Buffer.byteLength(JSON.stringify(makeEvent(e.type as never, e.data as never, { source: "bench", time: new Date() }).event));

/** transcript.completed as v1 carried it: the state with its WebVTT, each topic with its own. */
function v1(
  state: TranscriptState,
  topics: TopicRecord[],
  v2: Extract<TranscriptEvent, { type: "transcript.completed" }>,
): TranscriptEvent {
  const { webvtt_gzip: _once, ...rest } = v2.data;
  const withText = topics.map((t) => ({ id: t.id, title: t.title, summary: t.summary, timestamp: t.timestamp, duration: t.duration }));
  return {
    type: "transcript.completed",
    data: {
      ...rest,
      transcript: { ...rest.transcript, webvtt: state.webvtt },
      topics: withText.map((t, i) => ({ ...t, webvtt: wordsToWebvtt(topics[i]!.words) })),
    },
  } as never;
}

function measure(minutes: number): void {
  const topics = topicsOfMeeting(minutes);
  const base = newAggregate({
    id: "00000000-0000-4000-8000-000000000000",
    now: new Date(),
    user_id: "u",
    name: "bench",
    source_kind: "file",
  });
  const running: Aggregate = { ...base, topics: [], events: [], current_run_id: "run" };
  const replaced = decide({ type: "replaceTopics", run_id: "run", topics, now: new Date() }, running);
  const updated = replaced.find((e) => e.type === "transcript.updated")!;
  const state = { ...running.state, ...(updated.data as TranscriptState), status: "processing" as const };
  const completedV2 = decide({ type: "complete", run_id: "run", now: new Date() }, { ...running, state, topics }).find(
    (e) => e.type === "transcript.completed",
  )! as Extract<TranscriptEvent, { type: "transcript.completed" }>;
  const baseline = {
    name: `transcript.completed v1, ${minutes} min`,
    value: bytes(v1(state, topics, completedV2)),
    unit: "bytes",
    label: "v1",
  };
  report(baseline);
  report({ name: `transcript.completed v2, ${minutes} min`, value: bytes(completedV2), unit: "bytes" }, baseline);
  report({ name: `transcript.updated with the new WebVTT, ${minutes} min`, value: bytes(updated), unit: "bytes" }, baseline);
}

export default async function bench(): Promise<void> {
  for (const minutes of [60, 120]) measure(minutes);
  console.log(
    `NATS's default max_payload: ${MAX_PAYLOAD.toLocaleString("en-US")} bytes; goal (issue 20): the completion of 2 h well under it`,
  );
}
