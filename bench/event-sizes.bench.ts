// Sizes of a long transcript's largest events (issue 20) against NATS's default 1 MB max_payload:
// transcript.completed as v2 carries it (the WebVTT once, compressed; topics as parts of it) next to
// v1 (the WebVTT, and every topic's again) as baseline, and the transcript.updated that carries a new
// WebVTT as v3 carries it (compressed) next to v2 (as text), with what the compression costs: the
// writer's encoding and a reader's decoding of that event, v3 next to v2. The densest speech: a cue
// per word (services/transcription/test/long-transcript.ts).
import {
  carriedWebvtt,
  makeEvent,
  parseEvent,
  transcriptChange,
  transcriptUpdated,
  wordsToWebvtt,
  type TopicRecord,
  type TranscriptState,
  type TranscriptUpdated,
} from "@scribe/contracts";
import { decide, type TranscriptEvent } from "../services/transcription/src/domain/decider";
import { newAggregate, type Aggregate } from "../services/transcription/src/domain/transcript";
import { topicsOfMeeting } from "../services/transcription/test/long-transcript";
import { report } from "./report";

const MAX_PAYLOAD = 1024 * 1024;
const MINUTES = [60, 120, 180];
/** Encodings and decodings timed per figure (the median is reported). */
const TIMED = Number(process.env.BENCH_EVENT_SIZES_TIMED ?? 15);
const wire = (e: TranscriptEvent) =>
  JSON.stringify(makeEvent(e.type as never, e.data as never, { source: "bench", time: new Date() }).event);
const bytes = (e: TranscriptEvent) => Buffer.byteLength(wire(e));

function medianMs(fn: () => unknown): number {
  fn(); // warm-up: JIT, zlib's first allocation
  const runs: number[] = [];
  for (let i = 0; i < TIMED; i++) {
    const start = performance.now();
    fn();
    runs.push(performance.now() - start);
  }
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
}

/**
 * transcript.updated carrying a new WebVTT as v3 does (`decided`: the decider's event) and as v2 did
 * (the WebVTT as text), and what each costs: the writer from the decided state to the bytes it
 * queues (v3 compresses), a reader from the bytes to the WebVTT (v3 decompresses).
 */
function updated(minutes: number, decided: Extract<TranscriptEvent, { type: "transcript.updated" }>, state: TranscriptState): void {
  const v2: TranscriptEvent = { type: "transcript.updated", data: transcriptChange(decided.data) };
  const sizeV2 = { name: `transcript.updated v2 with the new WebVTT, ${minutes} min`, value: bytes(v2), unit: "bytes", label: "v2" };
  report(sizeV2);
  const sizeV3 = { name: `transcript.updated v3 with the new WebVTT, ${minutes} min`, value: bytes(decided), unit: "bytes" };
  report(sizeV3, sizeV2);
  report({ ...sizeV3, name: `  the same against max_payload` }, { name: "max_payload", value: MAX_PAYLOAD, unit: "bytes" });
  const encode = (data: () => TranscriptUpdated) => medianMs(() => wire({ type: "transcript.updated", data: data() }));
  const encodeV2 = { name: `  writer encodes it, v2`, value: encode(() => state), unit: "ms", label: "v2" };
  report(encodeV2);
  report({ name: `  writer encodes it, v3 (compresses)`, value: encode(() => transcriptUpdated(state, true)), unit: "ms" }, encodeV2);
  const decode = (bytes: string) => medianMs(() => carriedWebvtt((parseEvent(bytes) as { data: TranscriptUpdated }).data));
  const decodeV2 = { name: `  reader decodes it, v2`, value: decode(wire(v2)), unit: "ms", label: "v2" };
  report(decodeV2);
  report({ name: `  reader decodes it, v3 (decompresses)`, value: decode(wire(decided)), unit: "ms" }, decodeV2);
}

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
  const decided = replaced.find((e) => e.type === "transcript.updated")! as Extract<TranscriptEvent, { type: "transcript.updated" }>;
  const state = { ...running.state, ...(transcriptChange(decided.data) as TranscriptState), status: "processing" as const };
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
  updated(minutes, decided, state);
}

export default async function bench(): Promise<void> {
  for (const minutes of MINUTES) measure(minutes);
  console.log(
    `NATS's default max_payload: ${MAX_PAYLOAD.toLocaleString("en-US")} bytes (a quarter: ${(MAX_PAYLOAD / 4).toLocaleString("en-US")}); ` +
      "goal (issue 20): every event of 3 h of the densest speech well under it, the new WebVTT of 3 h under a quarter of it",
  );
}
