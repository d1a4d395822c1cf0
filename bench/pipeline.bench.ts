// `pnpm bench pipeline`: the multitrack workflow on a ~10-minute, 4-track synthesised meeting, run
// by the real workflow runner, ffmpeg and pocketsphinx. Prints each stage's time (from the run's
// step records) and, for the media stages, the same work done by raw ffmpeg in the same run.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackends, loadAiConfig } from "@scribe/ai";
import { transcriptKeys } from "@scribe/contracts";
import { createLogger, LocalStorage } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { ANALYSIS_SAMPLE_RATE, encoderArgs, mixdownFilter, uploadFile } from "@scribe/media";
import { getRun, type StepView } from "@scribe/workflow";
import { workflowTestEnv } from "@scribe/workflow/testing";
import { startPipeline, startPipelineWorkers } from "../services/transcription/src/pipelines/index";
import { blankTranscript, MemoryPort } from "../services/transcription/test/pipelines/support/memory-port";
import { benchMeeting } from "./pipeline-meeting";
import { report, time } from "./report";

const MINUTES = Number(process.env.BENCH_MEETING_MINUTES ?? 10);
const BUCKET = "daily-bench";

function ffmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    p.stdout.on("data", () => {});
    p.stderr.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    p.on("error", reject);
    p.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}: ${err}`))));
  });
}

const seconds = (s: StepView | undefined) => (s?.durationMs ?? Number.NaN) / 1000;

export default async function bench(): Promise<void> {
  const meeting = await benchMeeting(MINUTES);
  const audioSeconds = meeting.fixture.truth.duration;
  console.log(
    `meeting: ${(audioSeconds / 60).toFixed(1)} min, ${meeting.tracks.length} Opus/WebM tracks at offsets ${meeting.tracks.map((t) => t.offset.toFixed(2)).join(", ")} s`,
  );

  const env = await workflowTestEnv("bench-pipeline");
  const schema = await env.openSchema("pipelines");
  const root = await mkdtemp(join(tmpdir(), "scribe-bench-pipeline-"));
  const log = createLogger("bench", process.env.BENCH_LOG_LEVEL ?? "silent");
  const port = new MemoryPort();
  const workers = await startPipelineWorkers({ sql: schema.sql, bus: env.bus, log }, port, {
    openBucket: (b) => new LocalStorage(join(root, "storage"), b),
    transcriptsBucket: "transcripts",
    ai: createBackends(loadAiConfig({}), log),
    workDir: join(root, "work"),
    consentDenied: async () => false,
  });
  try {
    const storage = new LocalStorage(join(root, "storage"), BUCKET);
    const tracks = [];
    for (const [i, t] of meeting.tracks.entries()) {
      const key = `rec/track${i}.webm`;
      await uploadFile(storage, key, t.path);
      tracks.push({ key, start_offset_seconds: null, participant_id: `p${i}`, participant_name: t.name, user_id: null, size: null });
    }
    const id = "bench-transcript";
    port.add(blankTranscript(id));
    const input = {
      transcript_id: id,
      kind: "multitrack" as const,
      bucket: BUCKET,
      tracks,
      file: null,
      participants: [],
      source_language: "en",
      target_language: "en",
      meeting_id: null,
      room_id: null,
      recording_id: null,
    };

    const startedAt = process.hrtime.bigint();
    const runId = await schema.sql.begin(async (tx) => {
      const { run_id } = await startPipeline(tx, input);
      port.currentRun.set(id, run_id);
      return run_id;
    });
    const run = await eventually(
      async () => {
        const r = await getRun(schema.sql, runId);
        return r && r.status !== "running" ? r : null;
      },
      { timeoutMs: 60 * 60_000, intervalMs: 500, message: "pipeline run finished" },
    );
    const wall = Number(process.hrtime.bigint() - startedAt) / 1e9;
    if (run.status !== "succeeded") throw new Error(`run ${run.status}: ${run.errorStep}: ${run.error}`);

    const steps = run.steps.filter((s) => s.itemCount === null);
    for (const s of steps) report({ name: `stage ${s.step}${s.index === null ? "" : `[${s.index}]`}`, value: seconds(s), unit: "s" });
    report(
      { name: "run wall time", value: wall, unit: "s" },
      { name: "audio duration", value: audioSeconds, unit: "s", label: "of the audio's duration" },
    );
    const t = port.transcripts.get(id)!;
    console.log(
      `result: ${port.topics.get(id)!.flatMap((x) => x.words).length} words, ${port.topics.get(id)!.length} topics, title ${JSON.stringify(t.title)}, duration ${(t.duration / 1000).toFixed(1)} s`,
    );

    // The same media work by raw ffmpeg, now, in this run (best of 2; the workers are idle by now).
    const offsets = meeting.tracks.map((x) => x.offset);
    const dir = join(root, "raw");
    const rawMix = async () => {
      await ffmpeg([
        ...meeting.tracks.flatMap((x) => ["-i", x.path]),
        "-filter_complex",
        mixdownFilter(offsets, 48_000, 1),
        "-map",
        "[mix]",
        ...encoderArgs({ kind: "mp3", bitrateKbps: 64, channels: 1 }),
        join(dir, "mix.mp3"),
      ]);
      // The step also checks the mix is audible: one more decode of it.
      await ffmpeg([
        "-i",
        join(dir, "mix.mp3"),
        "-ac",
        "1",
        "-ar",
        String(ANALYSIS_SAMPLE_RATE),
        "-c:a",
        "pcm_f32le",
        "-f",
        "f32le",
        "pipe:1",
      ]);
    };
    const mp3 = join(root, "storage", "transcripts", transcriptKeys.mp3(id));
    const rawWave = () =>
      ffmpeg([
        "-i",
        mp3,
        "-map",
        "0:a:0",
        "-vn",
        "-ac",
        "1",
        "-ar",
        String(ANALYSIS_SAMPLE_RATE),
        "-c:a",
        "pcm_f32le",
        "-f",
        "f32le",
        "pipe:1",
      ]);
    await mkdir(dir, { recursive: true });
    let mixS = Number.POSITIVE_INFINITY;
    let waveS = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 2; i++) {
      mixS = Math.min(mixS, await time(rawMix));
      waveS = Math.min(waveS, await time(rawWave));
    }
    const step = (name: string) => steps.find((s) => s.step === name);
    report(
      { name: "media mixdown step (download, mix, mp3, audibility check, upload)", value: seconds(step("mixdown")), unit: "s" },
      { name: "raw ffmpeg mix+mp3+decode", value: mixS, unit: "s" },
    );
    report(
      { name: "media waveform step (download, peaks, upload)", value: seconds(step("waveform")), unit: "s" },
      { name: "raw ffmpeg decode", value: waveS, unit: "s" },
    );
  } finally {
    await workers.stop();
    await env.close();
    await rm(root, { recursive: true, force: true });
  }
}
