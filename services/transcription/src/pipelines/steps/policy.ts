// Queues, timeouts and retries of the pipeline steps (§4.2, §5.3). The reference's timeouts are
// kept; its "3 retries" are 4 attempts; backoff caps are the reference's, starting at 1 s.
import {
  defineQueue,
  NonRetryableError,
  type Backoff,
  type FailureInfo,
  type RunInfo,
  type StepContext,
  type StepOptions,
} from "@scribe/workflow";
import type { GetContext } from "../context";
import type { PipelineInput } from "../port";
import type { StepIo } from "./audio";

/** Speech-to-text is CPU-bound (pocketsphinx: one core per process): a few at once cluster-wide. */
export const STT_QUEUE = defineQueue("transcription-stt", { concurrency: 2 });
/** Mixdown is the heaviest ffmpeg job: one at a time (the reference's `mixdown-global`, max 1). */
export const MIXDOWN_QUEUE = defineQueue("transcription-mixdown", { concurrency: 1 });
/** Other ffmpeg work: conversion, waveform, diarization features. */
export const MEDIA_QUEUE = defineQueue("transcription-media", { concurrency: 4 });
/** Summariser calls (an LLM endpoint, or the offline extractive summariser). */
export const LLM_QUEUE = defineQueue("transcription-llm", { concurrency: 8 });

/**
 * The reference's 1200 s for speech-to-text and diarization assumes a GPU; the offline backends
 * run at 0.2–0.4× real time on one core (measured by `pnpm bench pipeline`), so a four-hour
 * recording needs up to ~1.5 h. The timeout only catches hangs: it must not fail long meetings.
 */
export const SPEECH_TIMEOUT_S = 4 * 3600;
/** Conversion and mixdown of long recordings (the reference refreshes mixdown's to 300 + 60×tracks + duration/10). */
export const MEDIA_TIMEOUT_S = 1800;

const backoff = (maxSeconds: number): Partial<Backoff> => ({ initialMs: 1000, factor: 2, maxMs: maxSeconds * 1000 });

/** `timeout` seconds, `retries` retries after the first attempt, backoff capped at `cap` seconds. */
export function policy(
  timeout: number,
  retries: number,
  cap: number,
  extra: Omit<StepOptions, "timeoutMs" | "maxAttempts" | "backoff"> = {},
): StepOptions {
  return { timeoutMs: timeout * 1000, maxAttempts: retries + 1, backoff: backoff(cap), ...extra };
}

export function ioOf(ctx: Pick<StepContext<unknown, unknown, unknown>, "signal" | "heartbeat">): StepIo {
  return { signal: ctx.signal, heartbeat: () => ctx.heartbeat() };
}

/** The run failed for good (a step out of attempts or non-retryable): the transcript says why. */
export function failTranscript(get: GetContext) {
  return async (_tx: unknown, run: RunInfo<PipelineInput>, failure: FailureInfo): Promise<void> => {
    const { port, log } = get();
    const reason = `${failure.step}${failure.index !== null ? `[${failure.index}]` : ""} failed after ${failure.attempts} attempt(s): ${failure.error}`;
    try {
      await port.fail(run.input.transcript_id, run.id, reason);
    } catch (e) {
      // The run is failed either way; the transcript stays `processing` until reprocessed.
      log.error({ err: e, runId: run.id, transcriptId: run.input.transcript_id }, "CRITICAL: could not set the transcript to error");
    }
  };
}

/** Post-completion side steps never fail the run (§4.2 "no error status"): the last attempt gives up quietly. */
export async function bestEffort<T>(
  ctx: Pick<StepContext<unknown, unknown, unknown>, "attempt" | "maxAttempts" | "log" | "signal">,
  fallback: T,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (ctx.signal.aborted || ctx.attempt < ctx.maxAttempts) throw e;
    ctx.log.warn({ err: e }, "best-effort step gave up");
    return fallback;
  }
}

export function requireTracks(input: PipelineInput): void {
  if (input.tracks.length === 0) throw new NonRetryableError(`recording has no audio tracks (transcript ${input.transcript_id})`);
}
