import { readFile } from "node:fs/promises";
import { eventually } from "@scribe/kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { liveDictation } from "../../simulators/src/speech/pipeline-meetings";
import { synthesizeMeeting, type MeetingFixture, type TruthTurn } from "../../simulators/src/speech/synth";
import { normaliseForWer } from "../src/metrics";
import { PocketsphinxStream } from "../src/stt/pocketsphinx-stream";
import type { StreamedUtterance } from "../src/types";
import { HEAVY, log, MODEL_DIR } from "./helpers";

async function dictation(): Promise<{ fx: MeetingFixture; pcm: Buffer }> {
  const fx = await synthesizeMeeting(liveDictation);
  return { fx, pcm: (await readFile(fx.mixPath)).subarray(44) };
}

/** Bytes of the stream up to `seconds` (whole samples). */
const at = (seconds: number) => Math.floor(seconds * 16_000) * 2;

function open(utterances: StreamedUtterance[]): PocketsphinxStream {
  const stream = new PocketsphinxStream({
    modelDir: MODEL_DIR,
    pauseMs: 300,
    vadThreshold: 2,
    language: "en",
    onUtterance: (u) => utterances.push(u),
    logger: log,
  });
  streams.push(stream);
  return stream;
}

/** The utterance heard during `turn` (on the stream's timeline), and how many of its words it got right. */
function heard(utterances: StreamedUtterance[], turn: TruthTurn): { words: string[]; right: number } {
  const words = utterances.flatMap((u) => u.words).filter((w) => w.start >= turn.start - 0.3 && w.end <= turn.end + 0.3);
  const said = normaliseForWer(words.map((w) => w.text).join(""));
  return { words: said, right: said.filter((w) => turn.words.includes(w)).length };
}

/** Feed PCM in 20 ms packets, as the live decoder hands it over. */
function feed(stream: PocketsphinxStream, pcm: Buffer): void {
  for (let i = 0; i < pcm.length; i += 640) stream.write(pcm.subarray(i, i + 640));
}

const streams: PocketsphinxStream[] = [];
afterEach(() => {
  for (const s of streams.splice(0)) s.kill();
});

describe("live speech-to-text (one long-lived pocketsphinx per stream)", () => {
  it(
    "delivers each sentence's words, on the stream's timeline, while the input is still open",
    async () => {
      const { fx, pcm } = await dictation();
      const utterances: StreamedUtterance[] = [];
      const stream = open(utterances);
      feed(stream, pcm);
      // Input never ended: every sentence must come out by its pause alone.
      await eventually(() => fx.truth.turns.every((t) => heard(utterances, t).right >= t.words.length / 2), {
        timeoutMs: 120_000,
        message: "every sentence recognised before the end of input",
      });
      expect(utterances.length).toBeGreaterThanOrEqual(fx.truth.turns.length);
      for (const u of utterances) {
        // One utterance is one sentence: capital first, full stop last.
        expect(u.words[0]!.text).toMatch(/^ [A-Z]/);
        expect(u.words.at(-1)!.text).toMatch(/\.$/);
      }
      expect(stream.restartCount).toBe(0);
      await stream.end();
    },
    HEAVY,
  );

  it(
    "restarts a killed recogniser on the audio since its last utterance, losing no sentence",
    async () => {
      const { fx, pcm } = await dictation();
      const [first, second] = fx.truth.turns;
      const utterances: StreamedUtterance[] = [];
      const stream = open(utterances);
      feed(stream, pcm.subarray(0, at(first!.end + 0.8)));
      await eventually(() => heard(utterances, first!).right > 0, { timeoutMs: 120_000, message: "first sentence recognised" });
      // Killed in the middle of the second sentence: its start was only ever read by the dead process.
      feed(stream, pcm.subarray(at(first!.end + 0.8), at((second!.start + second!.end) / 2)));
      const dead = await eventually(() => stream.pid);
      process.kill(dead, "SIGKILL");
      await eventually(() => stream.pid !== undefined && stream.pid !== dead, { timeoutMs: 60_000, message: "recogniser restarted" });
      expect(stream.restartCount).toBe(1);
      feed(stream, pcm.subarray(at((second!.start + second!.end) / 2)));
      await stream.end();

      for (const turn of fx.truth.turns) expect(heard(utterances, turn).right, turn.text).toBeGreaterThanOrEqual(turn.words.length / 2);
      // The first sentence was not announced twice.
      expect(utterances.filter((u) => u.words[0]!.start < first!.end).length).toBe(1);
    },
    HEAVY,
  );

  it(
    "delivers the last sentence when the input ends without a pause after it",
    async () => {
      const { fx, pcm } = await dictation();
      const first = fx.truth.turns[0]!;
      const utterances: StreamedUtterance[] = [];
      const stream = open(utterances);
      feed(stream, pcm.subarray(0, at(first.end)));
      await stream.end();
      expect(heard(utterances, first).right).toBeGreaterThanOrEqual(first.words.length / 2);
      expect(stream.pid).toBeUndefined();
    },
    HEAVY,
  );
});
