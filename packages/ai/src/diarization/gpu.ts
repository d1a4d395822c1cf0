// Diarization through the reference's GPU API (behaviour §8.3): `POST /diarize?audio_file_url=…`,
// pyannote on the service side. The service fetches the audio itself, so it needs a URL.
import { z } from "zod";
import { AppError } from "@scribe/kit";
import type { Logger } from "@scribe/kit";
import { resolveAudio } from "../audio";
import { bearer, joinUrl, requestJson, type RetryPolicy } from "../http";
import type { AudioInput, DiarizationSegment, Diarizer } from "../types";

export interface GpuDiarizerOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  retry: RetryPolicy;
  logger?: Logger;
}

export const DiarizationAnswer = z.object({
  diarization: z.array(z.object({ start: z.number(), end: z.number(), speaker: z.union([z.number().int(), z.string()]) })),
});

export class GpuApiDiarizer implements Diarizer {
  readonly name = "modal";
  constructor(private readonly opts: GpuDiarizerOptions) {}

  async diarize(audio: AudioInput, opts: { signal?: AbortSignal } = {}): Promise<DiarizationSegment[]> {
    const { url } = resolveAudio(audio);
    if (!url) {
      throw new AppError("invalid", "the GPU diarization API fetches the audio itself and needs its URL, not a local path");
    }
    const query = new URLSearchParams({ audio_file_url: url, timestamp: "0" });
    const answer = await requestJson(
      {
        url: `${joinUrl(this.opts.baseUrl, "/diarize")}?${query.toString()}`,
        headers: bearer(this.opts.apiKey),
        timeoutMs: this.opts.timeoutMs,
        retry: this.opts.retry,
        service: "GPU diarization API",
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      },
      DiarizationAnswer,
    );
    return answer.diarization
      .map((d) => ({ start: round3(d.start), end: round3(d.end), speaker: speakerNumber(d.speaker) }))
      .sort((a, b) => a.start - b.start);
  }
}

/** pyannote labels are `SPEAKER_01`; the reference keeps the last two characters when numeric. */
export function speakerNumber(label: number | string): number {
  if (typeof label === "number") return label;
  const tail = label.slice(-2);
  return /^\d+$/.test(tail) ? Number(tail) : 0;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
