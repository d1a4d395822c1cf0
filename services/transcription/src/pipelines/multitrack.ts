// Multitrack workflow (platform A, §5): one participant per track, so speakers come from track
// order, never from diarization. Tracks are transcribed in parallel on the recording's timeline;
// mixdown → MP3 → waveform run beside topics → title ∥ summaries; completion waits for all of
// them (unlike the reference, a transcript is never `ended` without its audio and waveform).
import { workflow } from "@scribe/workflow";
import type { Word } from "@scribe/ai";
import { cleanupConsent } from "./steps/consent";
import { mixdownTracks, processTrack, storeWaveform, type TrackResult } from "./steps/audio";
import {
  bestEffort,
  failTranscript,
  ioOf,
  LLM_QUEUE,
  MEDIA_QUEUE,
  MEDIA_TIMEOUT_S,
  MIXDOWN_QUEUE,
  policy,
  requireTracks,
  SPEECH_TIMEOUT_S,
  STT_QUEUE,
} from "./steps/policy";
import { mergeWords, participantsOf, storeSummaries, storeTitle, storeTopics } from "./steps/summaries";
import { PipelineInputSchema, type Track } from "./input";
import type { GetContext } from "./context";

export const MULTITRACK_WORKFLOW = "transcript-multitrack";

export function multitrackWorkflow(get: GetContext) {
  return workflow(MULTITRACK_WORKFLOW, PipelineInputSchema)
    .step("start", policy(60, 3, 10), async (ctx) => {
      const { port } = get();
      const id = ctx.input.transcript_id;
      requireTracks(ctx.input);
      await port.markProcessing(id, ctx.runId);
      // A fresh run replaces topics and participants (§5.6); the title is kept.
      await port.replaceTopics(id, ctx.runId, []);
      await port.update(id, ctx.runId, { participants: participantsOf(ctx.input) });
      return { tracks: ctx.input.tracks.length };
    })
    .forEach(
      "tracks",
      {
        ...policy(SPEECH_TIMEOUT_S, 3, 30, { queue: STT_QUEUE }),
        after: ["start"],
        items: (input) => input.tracks.map((track: Track, index: number) => ({ track, index })),
      },
      async (ctx): Promise<TrackResult> => processTrack(get().deps, ctx.input, ctx.item.track, ctx.item.index, ioOf(ctx)),
    )
    .step("mixdown", { ...policy(MEDIA_TIMEOUT_S, 2, 15, { queue: MIXDOWN_QUEUE }), after: ["tracks"] }, async (ctx) => {
      const { port, deps } = get();
      const offsets = [...ctx.parents.tracks].sort((a, b) => a.index - b.index).map((t) => t.offset);
      const out = await mixdownTracks(deps, ctx.input, offsets, ioOf(ctx));
      await port.update(ctx.input.transcript_id, ctx.runId, {
        audio_location: "storage",
        ...(out.duration_ms > 0 ? { duration: out.duration_ms } : {}),
      });
      if (out.duration_ms > 0) await port.appendEvent(ctx.input.transcript_id, ctx.runId, "DURATION", { duration: out.duration_ms });
      return out;
    })
    .step("waveform", { ...policy(300, 3, 10, { queue: MEDIA_QUEUE }), after: ["mixdown"] }, async (ctx) => {
      const { port, deps } = get();
      const out = await storeWaveform(deps, ctx.input, ioOf(ctx));
      await port.appendEvent(ctx.input.transcript_id, ctx.runId, "WAVEFORM", { waveform: out.waveform });
      return { segments: out.waveform.length };
    })
    .step("merge", { ...policy(300, 3, 10), after: ["tracks"] }, async (ctx): Promise<{ words: Word[] }> => {
      const perTrack = [...ctx.parents.tracks].sort((a, b) => a.index - b.index).map((t) => t.words);
      return { words: mergeWords(perTrack) };
    })
    .step("topics", { ...policy(3600, 3, 30, { queue: LLM_QUEUE }), after: ["merge"] }, async (ctx) => {
      const { port, deps } = get();
      const words = ctx.parents.merge.words;
      const span = words.length ? words[words.length - 1]!.end - words[0]!.start : 0;
      return storeTopics(deps, port, ctx.input, ctx.runId, words, { accumulate: false, durationSeconds: span });
    })
    .step("title", { ...policy(300, 3, 15, { queue: LLM_QUEUE }), after: ["topics"] }, async (ctx) => {
      const { port, deps } = get();
      return { title: await storeTitle(deps, port, ctx.input, ctx.runId, ctx.parents.topics.titles) };
    })
    .step("summaries", { ...policy(1200, 3, 30, { queue: LLM_QUEUE }), after: ["merge", "topics", "mixdown"] }, async (ctx) => {
      const { port, deps } = get();
      const seconds = ctx.parents.mixdown.duration_ms / 1000;
      return storeSummaries(deps, port, ctx.input, ctx.runId, ctx.parents.merge.words, ctx.parents.topics.count, seconds);
    })
    .step("consent", { ...policy(60, 3, 10), after: ["waveform", "title", "summaries"] }, async (ctx) => {
      const { port, deps } = get();
      const none = { checked: false, denied: false, deleted: [] as string[], errors: [] as string[] };
      return bestEffort(ctx, none, () =>
        cleanupConsent(
          deps,
          port,
          ctx.input,
          ctx.runId,
          ctx.input.tracks.map((t) => t.key),
          ctx.log,
          ctx.signal,
        ),
      );
    })
    .step("complete", { ...policy(60, 3, 5), after: ["consent", "waveform", "title", "summaries"] }, async (ctx) => {
      const { port } = get();
      const id = ctx.input.transcript_id;
      // The reference's end-of-run marker (§5.3 finalize): an empty TRANSCRIPT event.
      await port.appendEvent(id, ctx.runId, "TRANSCRIPT", { text: "", translation: null });
      return { completed: await port.complete(id, ctx.runId) };
    })
    .build({ onFailure: failTranscript(get) });
}
