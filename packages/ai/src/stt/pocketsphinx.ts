// Offline speech-to-text: pocketsphinx 0.8 (Debian `pocketsphinx` + `pocketsphinx-en-us`) run on
// silence-aligned 16 kHz chunks streamed from ffmpeg, so long recordings never sit in memory.
import { AppError } from "@scribe/kit";
import type { Logger } from "@scribe/kit";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chunkPcm, decodeSamples, mapConcurrent, resolveAudio, run, SAMPLE_RATE, wavBuffer, type PcmChunk } from "../audio";
import type { AudioInput, SpeechToText, SttWord, TranscribeOptions, Transcription } from "../types";

export interface PocketsphinxOptions {
  /** Directory holding `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir: string;
  /** Longest chunk handed to one decoder process. */
  chunkSeconds: number;
  /** Decoder processes run at once (each is single-threaded). */
  concurrency: number;
  logger?: Logger;
}

export class PocketsphinxStt implements SpeechToText {
  readonly name = "pocketsphinx";
  constructor(private readonly opts: PocketsphinxOptions) {}

  async transcribe(audio: AudioInput, opts: TranscribeOptions): Promise<Transcription> {
    // The Debian model is US English only; any other request still gets English, and says so.
    if (opts.language !== "en" && opts.language !== "auto") {
      this.opts.logger?.warn({ language: opts.language }, "pocketsphinx has only an English model; transcribing as English");
    }
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

  private async decodeChunk(chunk: PcmChunk, tmp: string, signal?: AbortSignal): Promise<SttWord[]> {
    const m = this.opts.modelDir;
    const started = Date.now();
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
        ms: Date.now() - started,
      },
      "pocketsphinx chunk decoded",
    );
    return words;
  }
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

/**
 * Parse `pocketsphinx_continuous -time yes` output: hypothesis lines are ignored, word lines are
 * `word start end confidence`. Fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`) are dropped,
 * pronunciation variants (`for(3)`) lose their suffix, times are shifted by `offset`.
 *
 * The model writes no punctuation, but the decoder cuts utterances at pauses (`<s>` … `</s>`): an
 * utterance becomes a sentence (capital first letter, full stop at its end), so transcripts read as
 * sentences and the sentence-based segmentation of multitrack transcripts (api.md §3.1) has ends.
 */
export function parsePocketsphinxTimes(output: string, offset = 0): SttWord[] {
  const words: SttWord[] = [];
  let utteranceStart = 0;
  const closeUtterance = () => {
    if (words.length > utteranceStart) {
      const first = words[utteranceStart]!;
      first.text = first.text.replace(/^ (\p{Ll})/u, (_, c: string) => ` ${c.toUpperCase()}`);
      const last = words[words.length - 1]!;
      if (!/[.?!…]$/.test(last.text)) last.text += ".";
    }
    utteranceStart = words.length;
  };
  for (const line of output.split("\n")) {
    const m = WORD_LINE.exec(line.trim());
    if (!m) continue;
    const raw = m[1]!;
    if (raw === "<s>" || raw === "</s>") {
      closeUtterance();
      continue;
    }
    if (/^(<.*>|\[.*\]|\+\+.*\+\+)$/.test(raw)) continue;
    const word = raw.replace(/\(\d+\)$/, "");
    if (!word) continue;
    words.push({
      text: ` ${casePronoun(word)}`,
      start: round3(Number(m[2]) + offset),
      end: round3(Number(m[3]) + offset),
      // Posterior probabilities come out a hair above 1 (1.0001); clamp to a probability.
      confidence: Math.min(1, Math.max(0, Number(m[4]))),
    });
  }
  closeUtterance();
  return words;
}

/** The model's vocabulary is lower case; "i", "i'm", "i'll" read better as English writes them. */
function casePronoun(word: string): string {
  return /^i('|$)/.test(word) ? `I${word.slice(1)}` : word;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
