import { describe, expect, it } from "vitest";
import { PocketsphinxStt } from "../src/stt/pocketsphinx";
import { parsePocketsphinxTimes } from "../src/stt/pocketsphinx-output";
import { chunkPcm } from "../src/audio";
import { AppError } from "@scribe/kit";
import { normaliseForWer, wordErrorRate } from "../src/metrics";
import type { Transcription } from "../src/types";
import type { MeetingFixture } from "../../simulators/src/speech/synth";
import { HEAVY, log, MODEL_DIR, standupFixture } from "./helpers";

async function transcribeStandup(
  chunkSeconds: number,
  concurrency: number,
): Promise<{ fx: MeetingFixture; result: Transcription; wer: number }> {
  const fx = await standupFixture();
  const stt = new PocketsphinxStt({ modelDir: MODEL_DIR, chunkSeconds, concurrency, logger: log });
  const result = await stt.transcribe(fx.mixPath, { language: "en" });
  const w = wordErrorRate(fx.truth.words, normaliseForWer(result.words.map((x) => x.text).join("")));
  console.log(
    `pocketsphinx WER on ${fx.truth.script.name} (${chunkSeconds} s chunks): ${(w.wer * 100).toFixed(1)}% (S=${w.substitutions} D=${w.deletions} I=${w.insertions} N=${w.referenceWords})`,
  );
  return { fx, result, wer: w.wer };
}

describe("offline speech-to-text (pocketsphinx)", () => {
  it("drops fillers and pronunciation variants, shifts times by the chunk offset, makes utterances sentences", () => {
    const out = [
      "good morning for",
      "<s> 0.000 0.150 0.998801",
      "good 0.160 0.430 0.999000",
      "<sil> 1.630 1.650 0.818221",
      "[NOISE] 1.700 1.800 0.5",
      "++BREATH++ 1.800 1.900 0.5",
      "for(3) 3.040 3.210 1.000100",
      "i'm 3.3 3.5 0.4",
      "</s> 3.5 3.6 1",
      "<s> 4.0 4.1 1",
      "well 4.1 4.4 0.9",
      "</s> 4.4 4.5 1",
      "<s> 5.0 5.1 1",
      "</s> 5.1 5.2 1",
      "done 6.0 6.3 0.9",
    ].join("\n");
    expect(parsePocketsphinxTimes(out, 10)).toEqual([
      { text: " Good", start: 10.16, end: 10.43, confidence: 0.999 },
      { text: " for", start: 13.04, end: 13.21, confidence: 1 },
      { text: " I'm.", start: 13.3, end: 13.5, confidence: 0.4 },
      { text: " Well.", start: 14.1, end: 14.4, confidence: 0.9 },
      // Output cut off without `</s>`: the chunk's end closes the utterance.
      { text: " Done.", start: 16, end: 16.3, confidence: 0.9 },
    ]);
  });

  it(
    "transcribes the synthesised two-speaker meeting with at most 20% WER",
    async () => {
      const { fx, result, wer } = await transcribeStandup(120, 1);
      expect(result.language).toBe("en");
      expect(wer).toBeLessThanOrEqual(0.2);
      for (const w of result.words) {
        expect(w.text.startsWith(" ")).toBe(true);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
      }
      // Words land inside the speech of the turn that said them.
      const budget = result.words.find((w) => w.text.replace(/[.?!…]$/, "").toLowerCase() === " budget");
      const turn = fx.truth.turns.find((t) => t.text.includes("budget"))!;
      expect(budget!.start).toBeGreaterThanOrEqual(turn.start - 0.1);
      expect(budget!.end).toBeLessThanOrEqual(turn.end + 0.1);
    },
    HEAVY,
  );

  it("cuts long audio into chunks at the quietest point near the limit, losing no sample", async () => {
    // 1 s tone blocks separated by 0.2 s of silence, fed in odd-sized blocks as ffmpeg would.
    const rate = 16000;
    const signal = new Int16Array(rate * 6);
    for (let i = 0; i < signal.length; i++) signal[i] = i % 19200 < 16000 ? Math.round(8000 * Math.sin(i / 3)) : 0;
    async function* blocks() {
      for (let i = 0; i < signal.length; i += 3331) yield signal.slice(i, i + 3331);
    }
    const chunks = [];
    for await (const c of chunkPcm(blocks(), { sampleRate: rate, maxSeconds: 2, searchSeconds: 1 })) chunks.push(c);
    expect(chunks.reduce((n, c) => n + c.samples.length, 0)).toBe(signal.length);
    let offset = 0;
    for (const c of chunks) {
      expect(c.offset).toBeCloseTo(offset / rate, 6);
      expect(c.samples.length).toBeLessThanOrEqual(2 * rate);
      offset += c.samples.length;
      // Every cut lands in a pause: the samples either side of it are silent.
      if (offset < signal.length) expect(signal[offset]).toBe(0);
    }
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it("rejects audio ffmpeg cannot read as a bad input, not an outage", async () => {
    const stt = new PocketsphinxStt({ modelDir: MODEL_DIR, chunkSeconds: 60, concurrency: 1 });
    const error = await stt.transcribe("/nonexistent/meeting.mp3", { language: "en" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe("invalid");
  });
});
