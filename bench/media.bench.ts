// Media stages of a 10-minute, 4-track synthetic meeting (offset probe, pad, mixdown, MP3,
// waveform), each timed through @scribe/media and as the same raw ffmpeg/ffprobe command in the
// same run; the ratio is the package's overhead (temp file + rename, progress pipe, probing, JS peaks).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  SPEECH_WAV,
  alignFilter,
  encoderArgs,
  encodeMp3,
  mixdown,
  mixdownFilter,
  padTrack,
  trackStartOffset,
  waveform,
} from "@scribe/media";
import { report, time } from "./report";

const MINUTES = Number(process.env.BENCH_MEETING_MINUTES ?? 10);
const REPEAT = Number(process.env.BENCH_MEDIA_REPEAT ?? 2);
const OFFSETS = [0, 3.2, 7.5, 12.1];
const CACHE = fileURLToPath(new URL("../.data/bench-media/", import.meta.url));
const LINES = [
  "Let us start with the quarterly budget and the hiring plan for the platform team.",
  "I think the migration to the new storage backend should wait until the audit is done.",
  "The customer interviews showed that search is the feature people use every single day.",
  "Action item: Maria will send the revised roadmap to everyone before Friday.",
];

function run(cmd: string, args: string[], discardStdout = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ["ignore", discardStdout ? "pipe" : "ignore", "pipe"] });
    let err = "";
    p.stdout?.on("data", () => {});
    p.stderr!.on("data", (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    p.on("error", reject);
    p.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err}`))));
  });
}
const ff = (args: string[], discard = false) => run("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args], discard);

/**
 * Track k speaks (a looped flite sentence) in every 4th 20 s turn and is silent otherwise, encoded
 * like a platform's per-participant recording: Opus in WebM, starting at its offset.
 */
async function meetingTracks(): Promise<string[]> {
  await mkdir(CACHE, { recursive: true });
  const tracks: string[] = [];
  for (const [k, offset] of OFFSETS.entries()) {
    const path = join(CACHE, `track${k}-${MINUTES}min.webm`);
    tracks.push(path);
    if (existsSync(path)) continue;
    const voice = join(CACHE, `voice${k}.wav`);
    if (!existsSync(voice)) await run("flite", ["-voice", ["rms", "slt", "awb", "kal16"][k]!, "-t", LINES[k]!, "-o", voice]);
    const tmp = `${path}.tmp.webm`;
    await ff([
      "-stream_loop",
      "-1",
      "-i",
      voice,
      "-t",
      String(MINUTES * 60 - offset),
      "-af",
      `volume=eval=frame:volume='eq(mod(floor(t/20),4),${k})',aresample=48000`,
      "-output_ts_offset",
      String(offset),
      "-ac",
      "1",
      "-c:a",
      "libopus",
      "-b:a",
      "32k",
      "-f",
      "webm",
      tmp,
    ]);
    await rename(tmp, path);
  }
  return tracks;
}

/**
 * Raw and ours alternate, REPEAT times each, and the best of each counts: on a shared machine the
 * minimum is the least disturbed run, and alternating spreads load changes over both sides.
 */
async function stage(name: string, ours: () => Promise<unknown>, raw: () => Promise<unknown>): Promise<void> {
  let rawS = Number.POSITIVE_INFINITY;
  let oursS = Number.POSITIVE_INFINITY;
  for (let i = 0; i < REPEAT; i++) {
    rawS = Math.min(rawS, await time(raw));
    oursS = Math.min(oursS, await time(ours));
  }
  report({ name: `media ${name}`, value: oursS, unit: "s" }, { name: "raw ffmpeg", value: rawS, unit: "s" });
}

export default async function bench(): Promise<void> {
  const tracks = await meetingTracks();
  const dir = await mkdtemp(join(tmpdir(), "scribe-bench-media-"));
  const out = (n: string) => join(dir, n);
  console.log(`meeting: ${MINUTES} min, ${tracks.length} Opus/WebM tracks at offsets ${OFFSETS.join(", ")} s; best of ${REPEAT}`);
  try {
    const offsets: number[] = [];
    await stage(
      "offset probe (4 tracks)",
      async () => {
        offsets.length = 0;
        for (const t of tracks) offsets.push((await trackStartOffset(t)).seconds);
      },
      async () => {
        for (const t of tracks) await run("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", t], true);
      },
    );

    await stage(
      "pad to 16 kHz WAV (4 tracks)",
      async () => {
        for (const [i, t] of tracks.entries()) await padTrack(t, out(`pad${i}.wav`), offsets[i]!);
      },
      async () => {
        for (const [i, t] of tracks.entries()) {
          await ff([
            "-i",
            t,
            "-map",
            "0:a:0",
            "-vn",
            "-sn",
            "-dn",
            "-af",
            alignFilter(offsets[i]!),
            ...encoderArgs(SPEECH_WAV),
            out(`raw-pad${i}.wav`),
          ]);
        }
      },
    );

    const mixFormat = { kind: "wav", channels: 1 } as const;
    await stage(
      "mixdown (4 tracks, offsets, amix normalize=0)",
      () =>
        mixdown(
          tracks.map((input, i) => ({ input, offsetSeconds: offsets[i]! })),
          out("mix.wav"),
          { format: mixFormat },
        ),
      () =>
        ff([
          ...tracks.flatMap((t) => ["-i", t]),
          "-filter_complex",
          mixdownFilter(offsets, 48_000, 1),
          "-map",
          "[mix]",
          ...encoderArgs({ ...mixFormat, sampleRate: undefined }),
          out("raw-mix.wav"),
        ]),
    );

    await stage(
      "mp3 (64 kbit/s)",
      () => encodeMp3(out("mix.wav"), out("mix.mp3")),
      () =>
        ff([
          "-i",
          out("mix.wav"),
          "-map",
          "0:a:0",
          "-vn",
          "-sn",
          "-dn",
          "-af",
          alignFilter(0),
          ...encoderArgs({ kind: "mp3", bitrateKbps: 64 }),
          out("raw-mix.mp3"),
        ]),
    );

    let points = 0;
    await stage(
      "waveform (255 peaks of the MP3)",
      async () => {
        points = (await waveform(out("mix.mp3"))).length;
      },
      () =>
        ff(["-i", out("mix.mp3"), "-map", "0:a:0", "-vn", "-ac", "1", "-ar", "8000", "-c:a", "pcm_f32le", "-f", "f32le", "pipe:1"], true),
    );
    if (points !== 255) throw new Error(`waveform has ${points} points`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
