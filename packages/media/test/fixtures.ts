// Synthesised test audio (ffmpeg lavfi, flite), generated on first use and cached under the
// gitignored `.data/media-fixtures/` keyed by the command, so a changed recipe makes a new file.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const FIXTURE_DIR = fileURLToPath(new URL("../../../.data/media-fixtures/", import.meta.url));

async function cached(name: string, recipe: string[], make: (tmp: string) => Promise<void>): Promise<string> {
  const hash = createHash("sha256").update(JSON.stringify(recipe)).digest("hex").slice(0, 12);
  const dot = name.lastIndexOf(".");
  const path = join(FIXTURE_DIR, `${name.slice(0, dot)}-${hash}${name.slice(dot)}`);
  if (existsSync(path)) return path;
  await mkdir(FIXTURE_DIR, { recursive: true });
  // Test files run in parallel: write beside, then rename, so nobody reads half a fixture.
  const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp${name.slice(dot)}`;
  try {
    await make(tmp);
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  return path;
}

/** A file made by one ffmpeg command; `args` are everything between the global flags and the output path. */
export function ffmpegFixture(name: string, args: string[]): Promise<string> {
  return cached(name, ["ffmpeg", ...args], async (tmp) => {
    await run("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args, tmp]);
  });
}

/** A sine tone: `seconds` long, `sampleRate` mono WAV unless other output args are given. */
export function tone(opts: {
  seconds: number;
  freq?: number;
  volume?: number;
  sampleRate?: number;
  out?: string[];
  name?: string;
  tsOffset?: number;
}): Promise<string> {
  const vol = opts.volume ?? 0.5;
  const args = [
    "-f",
    "lavfi",
    "-i",
    `sine=f=${opts.freq ?? 440}:d=${opts.seconds}:r=${opts.sampleRate ?? 16000}`,
    "-af",
    `volume=${vol}`,
    ...(opts.tsOffset ? ["-output_ts_offset", String(opts.tsOffset)] : []),
    ...(opts.out ?? ["-ac", "1", "-c:a", "pcm_s16le", "-f", "wav"]),
  ];
  return ffmpegFixture(opts.name ?? "tone.wav", args);
}

/** Digital silence (all samples 0). */
export function silence(seconds: number): Promise<string> {
  return ffmpegFixture("silence.wav", [
    "-f",
    "lavfi",
    "-i",
    `anullsrc=r=16000:cl=mono`,
    "-t",
    String(seconds),
    "-c:a",
    "pcm_s16le",
    "-f",
    "wav",
  ]);
}

/** A valid WAV with no samples at all. */
export function emptyWav(): Promise<string> {
  return ffmpegFixture("empty.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "0", "-c:a", "pcm_s16le", "-f", "wav"]);
}

/** A short video with no audio stream. */
export function videoOnly(): Promise<string> {
  return ffmpegFixture("video-only.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-c:v", "mpeg4", "-f", "mp4"]);
}

/** Bytes that are no media format (deterministic, so the cache holds one file). */
export function garbage(): Promise<string> {
  return cached("garbage.webm", ["garbage-v1"], async (tmp) => {
    const bytes = Buffer.alloc(8192);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + 13) % 251;
    await writeFile(tmp, bytes);
  });
}

/** Speech synthesised by flite (16 kHz mono), the voice pocketsphinx recognises best. */
export function speech(text: string, voice = "rms"): Promise<string> {
  return cached("speech.wav", ["flite", voice, text], async (tmp) => {
    await run("flite", ["-voice", voice, "-t", text, "-o", tmp]);
  });
}
