// The pipeline bench's meeting: a generated script of four speakers taking turns for about ten
// minutes, synthesised with the test fixtures' generator (cached), then each track encoded as a
// platform stores it: Opus in WebM, its container starting at the speaker's first word.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { synthesizeMeeting, type MeetingFixture, type MeetingScript } from "@scribe/simulators";

const exec = promisify(execFile);

const SENTENCES = [
  "Let us start with the quarterly budget and the hiring plan for the platform team.",
  "The migration to the new storage backend should wait until the security audit is done.",
  "Customer interviews showed that search is the feature people use every single day.",
  "Maria will send the revised roadmap to everyone before Friday.",
  "We decided to move the mobile release to the second week of March.",
  "The support team asked for better documentation of the payment system.",
  "I will review the test results with the quality team tomorrow morning.",
  "The marketing campaign depends on the release date, so we need a decision today.",
  "Our cloud costs went up by twenty percent because of the new analytics cluster.",
  "Let us agree to hire two more engineers for the data platform.",
  "The design team wants to simplify the checkout page before the launch.",
  "John will prepare the training material for the sales team next week.",
];

/** About `minutes` of conversation: speakers rotate with a deterministic, irregular pattern. */
export function benchScript(minutes: number): MeetingScript {
  const speakers = [
    { id: "ana", name: "Ana", voice: "kal16" as const },
    { id: "ben", name: "Ben", voice: "rms" as const },
    { id: "cleo", name: "Cleo", voice: "awb" as const },
    { id: "dan", name: "Dan", voice: "kal" as const },
  ];
  // A turn (sentence and gap) lasts 4.85 s on average (measured): 12.4 turns a minute.
  const turns = Array.from({ length: Math.round(minutes * 12.4) }, (_, i) => ({
    speaker: speakers[(i * 7 + Math.floor(i / 5)) % speakers.length]!.id,
    text: SENTENCES[(i * 5) % SENTENCES.length]!,
  }));
  return { name: `bench-pipeline-${minutes}min`, speakers, turns, gap: 0.5, leadIn: 0.5 };
}

export interface BenchMeeting {
  fixture: MeetingFixture;
  /** WebM/Opus track per speaker, in script order, each with the offset its container carries. */
  tracks: { path: string; offset: number; name: string }[];
}

export async function benchMeeting(minutes: number): Promise<BenchMeeting> {
  const fixture = await synthesizeMeeting(benchScript(minutes));
  const tracks: BenchMeeting["tracks"] = [];
  for (const t of fixture.truth.tracks) {
    const path = join(fixture.dir, `${t.speaker}.webm`);
    if (!existsSync(path)) {
      const tmp = `${path}.tmp.webm`;
      await exec("ffmpeg", [
        "-v",
        "error",
        "-y",
        "-i",
        fixture.trackPaths[t.speaker]!,
        "-ar",
        "48000",
        "-c:a",
        "libopus",
        "-b:a",
        "32k",
        "-output_ts_offset",
        String(t.offset),
        "-f",
        "webm",
        tmp,
      ]);
      await rename(tmp, path);
    }
    tracks.push({ path, offset: t.offset, name: t.name });
  }
  return { fixture, tracks };
}
