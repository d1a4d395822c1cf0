// File pipeline (platform B recordings and uploads, §4): one file → MP3 (served as is) →
// transcription ∥ best-effort diarization ∥ waveform → assembled words → topics → title ∥
// summaries → consent → completion.
import { assignSpeakers, type DiarizationSegment, type Word } from "@scribe/ai";
import { workflow } from "@scribe/workflow";
import { extractAudio, storeWaveform, transcribeMp3, withMp3 } from "./steps/audio";
import { cleanupConsent } from "./steps/consent";
import {
  bestEffort,
  failTranscript,
  ioOf,
  LLM_QUEUE,
  MEDIA_QUEUE,
  MEDIA_TIMEOUT_S,
  policy,
  SPEECH_TIMEOUT_S,
  STT_QUEUE,
} from "./steps/policy";
import { storeSummaries, storeTitle, storeTopics, wordsText } from "./steps/summaries";
import { PipelineInputSchema } from "./input";
import type { GetContext } from "./context";

export const FILE_WORKFLOW = "transcript-file";

export function fileWorkflow(get: GetContext) {
  return workflow(FILE_WORKFLOW, PipelineInputSchema)
    .step("extract", policy(MEDIA_TIMEOUT_S, 3, 10, { queue: MEDIA_QUEUE }), async (ctx) => {
      const { port, deps } = get();
      const id = ctx.input.transcript_id;
      await port.markProcessing(id, ctx.runId);
      // A fresh file run resets topics only (§5.6): participants are kept.
      await port.replaceTopics(id, ctx.runId, []);
      const out = await extractAudio(deps, ctx.input, ioOf(ctx));
      await port.update(id, ctx.runId, { audio_location: "storage", duration: out.duration_ms });
      await port.appendEvent(id, ctx.runId, "DURATION", { duration: out.duration_ms });
      return out;
    })
    .step(
      "transcribe",
      { ...policy(SPEECH_TIMEOUT_S, 3, 30, { queue: STT_QUEUE }), after: ["extract"] },
      async (ctx): Promise<{ words: Word[] }> => ({
        words: await transcribeMp3(get().deps, ctx.input, ioOf(ctx)),
      }),
    )
    .step(
      "diarize",
      { ...policy(SPEECH_TIMEOUT_S, 3, 30, { queue: MEDIA_QUEUE }), after: ["extract"] },
      async (ctx): Promise<{ segments: DiarizationSegment[] | null }> => {
        const { deps } = get();
        const diarizer = deps.ai.diarizer;
        if (!diarizer) return { segments: null };
        try {
          return { segments: await withMp3(deps, ctx.input, ioOf(ctx), (path) => diarizer.diarize(path, { signal: ctx.signal })) };
        } catch (e) {
          // Best effort (§4.2): words keep speaker 0. An abort is the runner's, not diarization's.
          if (ctx.signal.aborted) throw e;
          ctx.log.warn({ err: e }, "diarization failed; continuing without speakers");
          return { segments: null };
        }
      },
    )
    .step("waveform", { ...policy(300, 3, 10, { queue: MEDIA_QUEUE }), after: ["extract"] }, async (ctx) => {
      const { port, deps } = get();
      const out = await storeWaveform(deps, ctx.input, ioOf(ctx));
      await port.appendEvent(ctx.input.transcript_id, ctx.runId, "WAVEFORM", { waveform: out.waveform });
      return { segments: out.waveform.length };
    })
    .step("assemble", { ...policy(300, 3, 10), after: ["transcribe", "diarize"] }, async (ctx): Promise<{ words: Word[] }> => {
      const words = assignSpeakers(ctx.parents.transcribe.words, ctx.parents.diarize.segments ?? []);
      await get().port.appendEvent(ctx.input.transcript_id, ctx.runId, "TRANSCRIPT", { text: wordsText(words), translation: null });
      return { words };
    })
    .step("topics", { ...policy(1200, 3, 30, { queue: LLM_QUEUE }), after: ["assemble", "extract"] }, async (ctx) => {
      const { port, deps } = get();
      return storeTopics(deps, port, ctx.input, ctx.runId, ctx.parents.assemble.words, {
        accumulate: true,
        durationSeconds: ctx.parents.extract.duration_ms / 1000,
      });
    })
    .step("title", { ...policy(300, 3, 15, { queue: LLM_QUEUE }), after: ["topics"] }, async (ctx) => {
      const { port, deps } = get();
      return { title: await storeTitle(deps, port, ctx.input, ctx.runId, ctx.parents.topics.titles) };
    })
    .step("summaries", { ...policy(1200, 3, 30, { queue: LLM_QUEUE }), after: ["assemble", "topics", "extract"] }, async (ctx) => {
      const { port, deps } = get();
      const p = ctx.parents;
      return storeSummaries(deps, port, ctx.input, ctx.runId, p.assemble.words, p.topics.count, p.extract.duration_ms / 1000);
    })
    .step("consent", { ...policy(60, 3, 10), after: ["waveform", "title", "summaries"] }, async (ctx) => {
      const { port, deps } = get();
      const none = { checked: false, denied: false, deleted: [] as string[], errors: [] as string[] };
      const source = ctx.input.file ? [ctx.input.file.key] : [];
      return bestEffort(ctx, none, () => cleanupConsent(deps, port, ctx.input, ctx.runId, source, ctx.log, ctx.signal));
    })
    .step("complete", { ...policy(60, 3, 5), after: ["consent", "waveform", "title", "summaries"] }, async (ctx) => ({
      completed: await get().port.complete(ctx.input.transcript_id, ctx.runId),
    }))
    .build({ onFailure: failTranscript(get) });
}
