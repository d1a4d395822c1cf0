// Speech-to-text through the reference's self-hosted GPU API (behaviour §8.2), so existing GPU
// deployments (self-hosted FastAPI or Modal) can be reused: by URL when the audio has one, else
// by uploading chunks to the same service's OpenAI-compatible endpoint.
import { z } from "zod";
import { resolveAudio } from "../audio";
import { bearer, joinUrl, requestJson } from "../http";
import type { AudioInput, TranscribeOptions, Transcription } from "../types";
import { OpenAiStt, toSttWords, type OpenAiSttOptions } from "./openai";

export const FromUrlTranscription = z.object({
  text: z.string().optional(),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })),
});

export interface GpuApiSttOptions extends OpenAiSttOptions {
  /** Deadline of a whole-file transcription by URL, ms (uploads use `timeoutMs` per chunk). */
  fileTimeoutMs: number;
}

export class GpuApiStt extends OpenAiStt {
  override readonly name = "modal";
  private readonly fileTimeoutMs: number;
  constructor(opts: GpuApiSttOptions) {
    super({ ...opts, service: opts.service ?? "GPU transcription API" });
    this.fileTimeoutMs = opts.fileTimeoutMs;
  }

  override async transcribe(audio: AudioInput, opts: TranscribeOptions): Promise<Transcription> {
    const { url } = resolveAudio(audio);
    if (!url) return super.transcribe(audio, opts);
    const answer = await requestJson(
      {
        url: joinUrl(this.opts.baseUrl, "/v1/audio/transcriptions-from-url"),
        headers: { "content-type": "application/json", ...bearer(this.opts.apiKey) },
        body: () => JSON.stringify({ audio_file_url: url, language: opts.language, batch: true }),
        timeoutMs: this.fileTimeoutMs,
        retry: this.opts.retry,
        service: this.opts.service ?? "GPU transcription API",
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      },
      FromUrlTranscription,
    );
    // The service batches VAD segments, so words can arrive out of order: sort (as the reference).
    return { words: toSttWords(answer.words, 0).sort((a, b) => a.start - b.start), language: opts.language };
  }
}
