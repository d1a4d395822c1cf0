// The synthesised 3-speaker meeting as a platform would store it: one audio track per participant
// in the platform bucket. Two tracks carry their start offset (as the platform reports it); the
// third is a WebM whose container starts at the offset and reports none, so the pipeline reads it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { uploadFile } from "@scribe/media";
import { synthesizeMeeting, type MeetingFixture, threeSpeakerSync } from "@scribe/simulators";
import type { PipelineInput } from "../../../src/pipelines/port";
import type { PipelineEnv } from "./env";

const exec = promisify(execFile);

export const PLATFORM_BUCKET = "daily-test";

export function syncMeeting(): Promise<MeetingFixture> {
  return synthesizeMeeting(threeSpeakerSync);
}

/** Upload the tracks; the last one as WebM/Opus with its offset in the container only. */
export async function uploadTracks(env: PipelineEnv, fx: MeetingFixture, prefix: string): Promise<PipelineInput["tracks"]> {
  const storage = env.bucket(PLATFORM_BUCKET);
  const tracks: PipelineInput["tracks"] = [];
  for (const [i, t] of fx.truth.tracks.entries()) {
    const local = fx.trackPaths[t.speaker]!;
    const last = i === fx.truth.tracks.length - 1;
    let path = local;
    if (last) {
      path = join(env.storageRoot, `${prefix}-${t.speaker}.webm`);
      await exec("ffmpeg", [
        "-v",
        "error",
        "-y",
        "-i",
        local,
        "-ar",
        "48000",
        "-c:a",
        "libopus",
        "-b:a",
        "48k",
        "-output_ts_offset",
        String(t.offset),
        path,
      ]);
    }
    const key = `${prefix}/${t.speaker}-cam-audio.${last ? "webm" : "wav"}`;
    await uploadFile(storage, key, path);
    tracks.push({
      key,
      start_offset_seconds: last ? null : t.offset,
      participant_id: `pid-${t.speaker}`,
      participant_name: t.name,
      user_id: null,
      size: null,
    });
  }
  return tracks;
}

/** `seconds` of digital silence as a 16 kHz WAV (the "silent recording" input). */
export async function writeSilence(path: string, seconds: number): Promise<string> {
  await exec("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", String(seconds), path]);
  return path;
}
