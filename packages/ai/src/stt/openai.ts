// Speech-to-text through an OpenAI-compatible `/v1/audio/transcriptions` endpoint (OpenAI, and
// self-hosted Whisper servers): 16 kHz WAV chunks uploaded one by one, word timestamps requested.
import { FormData } from "undici";
import { z } from "zod";
import type { Logger } from "@scribe/kit";
import { chunkPcm, decodeSamples, resolveAudio, SAMPLE_RATE, wavBuffer, type PcmChunk } from "../audio";
import { bearer, joinUrl, requestJson, type RetryPolicy } from "../http";
import type { AudioInput, SpeechToText, SttWord, TranscribeOptions, Transcription } from "../types";

export interface OpenAiSttOptions {
  /** Server root; requests go to `<baseUrl>/v1/audio/transcriptions` (as the reference's TRANSCRIPT_URL). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Longest upload; 16 kHz WAV is 1.9 MB a minute and hosted OpenAI takes 25 MB at most. */
  chunkSeconds: number;
  logger?: Logger;
  /** Shown in errors and logs. */
  service?: string;
}

/** verbose_json with word granularity; `probability` is an extension some servers add. */
export const VerboseTranscription = z.object({
  text: z.string().optional(),
  language: z.string().nullish(),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number(), probability: z.number().nullish() })).nullish(),
});

export class OpenAiStt implements SpeechToText {
  readonly name: string = "openai";
  constructor(protected readonly opts: OpenAiSttOptions) {}

  async transcribe(audio: AudioInput, opts: TranscribeOptions): Promise<Transcription> {
    const { source } = resolveAudio(audio);
    const words: SttWord[] = [];
    let language: string | null = null;
    const signal = opts.signal ? { signal: opts.signal } : {};
    // Sequential on purpose: a hosted API rate-limits, and a self-hosted GPU is already parallel.
    for await (const chunk of chunkPcm(decodeSamples(source, { sampleRate: SAMPLE_RATE, ...signal }), {
      maxSeconds: this.opts.chunkSeconds,
    })) {
      const answer = await this.transcribeChunk(chunk, opts);
      language ??= answer.language ?? null;
      words.push(...toSttWords(answer.words ?? [], chunk.offset));
    }
    return { words: words.sort((a, b) => a.start - b.start), language: languageCode(language, opts.language) };
  }

  private transcribeChunk(chunk: PcmChunk, opts: TranscribeOptions): Promise<z.infer<typeof VerboseTranscription>> {
    const wav = wavBuffer(chunk.samples, SAMPLE_RATE);
    return requestJson(
      {
        url: joinUrl(this.opts.baseUrl, "/v1/audio/transcriptions"),
        headers: bearer(this.opts.apiKey),
        body: () => {
          const form = new FormData();
          form.append("file", new Blob([wav], { type: "audio/wav" }), `chunk-${chunk.index}.wav`);
          form.append("model", this.opts.model);
          form.append("response_format", "verbose_json");
          form.append("timestamp_granularities[]", "word");
          if (opts.language && opts.language !== "auto") form.append("language", opts.language);
          return form;
        },
        timeoutMs: this.opts.timeoutMs,
        retry: this.opts.retry,
        service: this.opts.service ?? "OpenAI-compatible transcription API",
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      },
      VerboseTranscription,
    );
  }
}

/**
 * Whisper words come with a leading space, OpenAI's without, Parakeet's with a trailing one:
 * normalise to the reference convention (one leading space, so concatenation reads).
 */
export function toSttWords(
  words: readonly { word: string; start: number; end: number; probability?: number | null | undefined }[],
  offset: number,
): SttWord[] {
  return words
    .filter((w) => w.word.trim() !== "")
    .map((w) => ({
      text: ` ${w.word.trim()}`,
      start: round3(w.start + offset),
      end: round3(Math.max(w.start, w.end) + offset),
      confidence: w.probability ?? null,
    }));
}

const LANGUAGE_NAMES: Record<string, string> = {
  english: "en",
  french: "fr",
  german: "de",
  spanish: "es",
  italian: "it",
  portuguese: "pt",
  dutch: "nl",
  russian: "ru",
  polish: "pl",
  ukrainian: "uk",
  swedish: "sv",
  norwegian: "no",
  danish: "da",
  finnish: "fi",
  czech: "cs",
  turkish: "tr",
  greek: "el",
  japanese: "ja",
  chinese: "zh",
  korean: "ko",
  arabic: "ar",
  hindi: "hi",
};

/** OpenAI reports the language by name ("english"); we store ISO 639-1 codes. */
export function languageCode(reported: string | null, requested: string): string {
  const r = reported?.trim().toLowerCase();
  if (r && /^[a-z]{2}$/.test(r)) return r;
  if (r && LANGUAGE_NAMES[r]) return LANGUAGE_NAMES[r];
  return requested === "auto" ? (r ?? "en") : requested;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
