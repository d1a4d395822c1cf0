// Model backends: speech-to-text real-time factor per backend runnable here (vs raw ffmpeg decoding
// of the same file), pocketsphinx WER and offline diarization error rate on synthesised meetings.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { decodePcm } from "@scribe/media";
import {
  diarizationErrorRate,
  normaliseForWer,
  wordErrorRate,
  PocketsphinxStt,
  OpenAiStt,
  OfflineDiarizer,
  OFFLINE_DIARIZER_DEFAULTS,
} from "@scribe/ai";
import { synthesizeMeeting, threeSpeakerPlanning, twoSpeakerStandup } from "@scribe/simulators";
import { report, time, type Measurement } from "./report";

const MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

export default async function bench(): Promise<void> {
  const two = await synthesizeMeeting(twoSpeakerStandup);
  const three = await synthesizeMeeting(threeSpeakerPlanning);
  const audio = three.mixPath;
  const duration = three.truth.duration;

  const decodeSeconds = await time(async () => {
    for await (const _ of decodePcm(audio)) void _;
  });
  const baseline: Measurement & { label: string } = {
    name: "ffmpeg decode",
    value: decodeSeconds / duration,
    unit: "RTF",
    label: "ffmpeg decode",
  };
  report(baseline);

  for (const concurrency of [1, 2]) {
    // Two processes get two chunks of about half the meeting each.
    const stt = new PocketsphinxStt({
      modelDir: MODEL_DIR,
      chunkSeconds: concurrency === 1 ? 300 : Math.ceil(duration / 2) + 5,
      concurrency,
    });
    let words: string[] = [];
    const s = await time(async () => {
      words = normaliseForWer((await stt.transcribe(audio, { language: "en" })).words.map((w) => w.text).join(""));
    });
    report(
      {
        name: `stt pocketsphinx, ${concurrency} process${concurrency > 1 ? "es" : ""} (${Math.round(duration)} s meeting)`,
        value: s / duration,
        unit: "RTF",
      },
      baseline,
    );
    if (concurrency === 1)
      report({
        name: `stt pocketsphinx WER, ${three.truth.script.name}`,
        value: wordErrorRate(three.truth.words, words).wer * 100,
        unit: "%",
      });
  }
  const twoWords = await new PocketsphinxStt({ modelDir: MODEL_DIR, chunkSeconds: 120, concurrency: 1 }).transcribe(two.mixPath, {
    language: "en",
  });
  report({
    name: `stt pocketsphinx WER, ${two.truth.script.name}`,
    value: wordErrorRate(two.truth.words, normaliseForWer(twoWords.words.map((w) => w.text).join(""))).wer * 100,
    unit: "%",
  });

  // The HTTP backends' own cost (decode, chunk, upload) against a local server that answers at once;
  // the model's time on a real server is not ours to measure here.
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ text: "", words: [] }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const openai = new OpenAiStt({
    baseUrl: url,
    model: "whisper-1",
    timeoutMs: 30_000,
    retry: { attempts: 1, backoffMs: 0, maxBackoffMs: 0 },
    chunkSeconds: 30,
  });
  const up = await time(() => openai.transcribe(audio, { language: "en" }));
  report(
    { name: "stt openai-compatible client overhead (local instant server, 30 s chunks)", value: up / duration, unit: "RTF" },
    baseline,
  );
  server.closeAllConnections();
  server.close();

  for (const fx of [two, three]) {
    const diarizer = new OfflineDiarizer(OFFLINE_DIARIZER_DEFAULTS);
    let segments: Awaited<ReturnType<OfflineDiarizer["diarize"]>> = [];
    const s = await time(async () => {
      segments = await diarizer.diarize(fx.mixPath);
    });
    const der = diarizationErrorRate(
      fx.truth.turns.map((t) => ({ start: t.start, end: t.end, speaker: t.speakerIndex })),
      segments,
    );
    const speakers = new Set(segments.map((x) => x.speaker)).size;
    report({
      name: `diarization offline DER, ${fx.truth.script.name} (${speakers}/${fx.truth.script.speakers.length} speakers found, 0.25 s collar)`,
      value: der.der * 100,
      unit: "%",
    });
    report({ name: `diarization offline, ${fx.truth.script.name}`, value: s / fx.truth.duration, unit: "RTF" }, baseline);
  }
}
