// Offline speech-to-text: pocketsphinx 0.8 (Debian `pocketsphinx` + `pocketsphinx-en-us`) run on
// silence-aligned 16 kHz chunks streamed from ffmpeg, so long recordings never sit in memory.
import { AppError } from "@scribe/kit";
import type { Logger } from "@scribe/kit";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chunkPcm, decodeSamples, mapConcurrent, resolveAudio, run, SAMPLE_RATE, wavBuffer, type PcmChunk } from "../audio";
import type { AudioInput, SpeechStream, SpeechStreamOptions, SpeechToText, SttWord, TranscribeOptions, Transcription } from "../types";
import { parsePocketsphinxTimes } from "./pocketsphinx-output";
import { PocketsphinxStream } from "./pocketsphinx-stream";

export interface PocketsphinxOptions {
  /** Directory holding `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir: string;
  /** Longest chunk handed to one decoder process. */
  chunkSeconds: number;
  /** Decoder processes run at once (each is single-threaded). */
  concurrency: number;
  /** Live streams: silence that ends an utterance (the recogniser's `-vad_postspeech`). */
  livePauseMs?: number;
  /** Live streams: speech-to-noise ratio of speech frames (`-vad_threshold`). */
  liveVadThreshold?: number;
  logger?: Logger;
}

export class PocketsphinxStt implements SpeechToText {
  readonly name = "pocketsphinx";
  constructor(private readonly opts: PocketsphinxOptions) {}

  async transcribe(audio: AudioInput, opts: TranscribeOptions): Promise<Transcription> {
    this.warnIfNotEnglish(opts.language);
    const { source } = resolveAudio(audio);
    const chunks = chunkPcm(decodeSamples(source, { sampleRate: SAMPLE_RATE, ...(opts.signal ? { signal: opts.signal } : {}) }), {
      maxSeconds: this.opts.chunkSeconds,
    });
    // pocketsphinx cannot read Node's stdin (a socket, not a pipe), so each chunk goes through a
    // temporary WAV file that lives only while its decoder runs.
    const tmp = await mkdtemp(join(tmpdir(), "scribe-sphinx-"));
    try {
      const perChunk = await mapConcurrent(chunks, this.opts.concurrency, (c) => this.decodeChunk(c, tmp, opts.signal));
      return { words: perChunk.flat(), language: "en" };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** One long-lived recogniser for a live stream (one process, about one core while speech is heard). */
  openStream(opts: SpeechStreamOptions): SpeechStream {
    this.warnIfNotEnglish(opts.language);
    return new PocketsphinxStream({
      ...opts,
      modelDir: this.opts.modelDir,
      pauseMs: this.opts.livePauseMs ?? 300,
      vadThreshold: this.opts.liveVadThreshold ?? 2,
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
    });
  }

  private warnIfNotEnglish(language: string): void {
    // The Debian model is US English only; any other request still gets English, and says so.
    if (language !== "en" && language !== "auto") {
      this.opts.logger?.warn({ language }, "pocketsphinx has only an English model; transcribing as English");
    }
  }

  private async decodeChunk(chunk: PcmChunk, tmp: string, signal?: AbortSignal): Promise<SttWord[]> {
    const m = this.opts.modelDir;
    const started = performance.now();
    const file = join(tmp, `chunk-${chunk.index}.wav`);
    let out: string;
    try {
      await writeFile(file, wavBuffer(chunk.samples, SAMPLE_RATE));
      out = await run(
        "pocketsphinx_continuous",
        [
          "-hmm",
          `${m}/en-us`,
          "-lm",
          `${m}/en-us.lm.bin`,
          "-dict",
          `${m}/cmudict-en-us.dict`,
          "-infile",
          file,
          "-time",
          "yes",
          "-logfn",
          "/dev/null",
        ],
        signal ? { signal } : {},
      );
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") {
        throw new AppError("internal", "pocketsphinx_continuous is not installed (Debian packages pocketsphinx and pocketsphinx-en-us)", {
          cause: e,
        });
      }
      throw new AppError("internal", `pocketsphinx failed on chunk ${chunk.index}: ${(e as Error).message}`, { cause: e });
    } finally {
      await rm(file, { force: true });
    }
    const words = parsePocketsphinxTimes(out, chunk.offset);
    this.opts.logger?.debug(
      {
        chunk: chunk.index,
        offset: chunk.offset,
        seconds: chunk.samples.length / SAMPLE_RATE,
        words: words.length,
        ms: performance.now() - started,
      },
      "pocketsphinx chunk decoded",
    );
    return words;
  }
}
