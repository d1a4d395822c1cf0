// Issue 7: corrupt or silent audio ends in a clear error state through HTTP, and POST /process
// retries it once the audio is fixed. A corrupt upload is refused at once (400); a silent one is
// accepted and its run fails with the reason; a platform recording with a corrupt track fails the
// same way. Reasons are read from the write side (the API shows the status, not the reason).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ok, type ScribeClient } from "@scribe/client";
import type { RecordingReady } from "@scribe/contracts";
import { connectDb, openStorage, StorageConfig, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish, speechMp3, uploadWhole } from "./support/media";
import { untilSettled } from "./support/recorded-meeting";
import { onTranscript } from "./support/api";
import { startSystem, streamEvents, type TestSystem } from "./support/system";

const PROCESSING_MS = 240_000;

let sys: TestSystem;
let alice: ScribeClient;
let sql: Sql;
let root: string;
let storage: StorageConfig;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "scribe-tfail-"));
  storage = StorageConfig.parse({ STORAGE_LOCAL_ROOT: root });
  sys = await startSystem({
    label: "tfail",
    services: ["recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: root },
  });
  alice = sys.client("alice");
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await sys?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const errorOf = async (id: string) =>
  (await sql<{ error: string | null; current_run_id: string | null }[]>`select error, current_run_id from transcript where id = ${id}`)[0]!;
const transcriptOfRecording = (recordingId: string) =>
  eventually(async () => (await sql<{ id: string }[]>`select id from transcript where recording_id = ${recordingId}`)[0]?.id, {
    message: `transcript of ${recordingId}`,
  });

/** A platform recording of one speaker whose only track is corrupt; answers its transcript and track. */
async function corruptTrackRecording(speaker: string): Promise<{ id: string; key: string; tracks: ReturnType<typeof openStorage> }> {
  const bucket = storage.DAILYCO_STORAGE_AWS_BUCKET_NAME;
  const key = `corrupt-${randomUUID()}/track-${speaker.toLowerCase()}.webm`;
  const tracks = openStorage(storage, bucket);
  await tracks.put(key, Buffer.from("garbage that no demuxer accepts".repeat(100)));
  const participant = `p-${speaker.toLowerCase()}`;
  const rec: RecordingReady = {
    recording_id: `rec-${randomUUID()}`,
    kind: "multitrack",
    source: "platform",
    bucket,
    tracks: [{ key, start_offset_seconds: 0, participant_id: participant, participant_name: speaker, user_id: null, size: null }],
    file: null,
    transcript_id: null,
    meeting_id: randomUUID(),
    room_id: randomUUID(),
    room_name: "broken",
    owner_user_id: "alice",
    platform: "daily",
    recorded_at: new Date().toISOString(),
    duration_seconds: 5,
    participants: [{ participant_id: participant, name: speaker, user_id: null }],
  };
  await publish(sys.prefix, "recording.ready", rec);
  return { id: await transcriptOfRecording(rec.recording_id), key, tracks };
}

/** `seconds` of digital silence as MP3: it has an audio stream, so the upload is accepted. */
function silentMp3(seconds: number): Buffer {
  return execFileSync("ffmpeg", [
    "-v",
    "error",
    "-f",
    "lavfi",
    "-i",
    "anullsrc=r=16000:cl=mono",
    "-t",
    String(seconds),
    "-c:a",
    "libmp3lame",
    "-b:a",
    "32k",
    "-f",
    "mp3",
    "pipe:1",
  ]);
}

const upload = (id: string, bytes: Buffer, filename: string) => uploadWhole(alice, id, bytes, filename);

describe("audio that cannot be transcribed", () => {
  it("refuses a corrupt upload with a 400 naming the problem; the transcript stays idle", async () => {
    const t = await ok(alice.POST("/v1/transcripts", { body: { name: "Corrupt" } }));
    const res = await upload(t.id, Buffer.from("this is not a media file at all".repeat(100)), "meeting.mp3");
    expect(res.response.status).toBe(400);
    expect(JSON.stringify(res.error)).toMatch(/no audio stream/i);
    expect((await ok(alice.GET("/v1/transcripts/{transcript_id}", onTranscript(t.id)))).status).toBe("idle");
  });

  it(
    "ends a silent upload in error with the reason; process after the audio is fixed ends it",
    async () => {
      const t = await ok(alice.POST("/v1/transcripts", { body: { name: "Silent" } }));
      await ok(upload(t.id, silentMp3(8), "meeting.mp3"));
      const failed = await untilSettled(alice, t.id, PROCESSING_MS);
      expect(failed.status).toBe("error");
      const first = await errorOf(t.id);
      expect(first.error).toMatch(/silent/);

      // An operator puts real speech where the upload is, then reprocesses through the API.
      const ready = await eventually(async () =>
        (await streamEvents(sys.prefix, "RECORDINGS")).find((e) => e.type === "recording.ready" && e.data.transcript_id === t.id),
      );
      const file = ready.data.file as { key: string };
      await openStorage(storage, ready.data.bucket as string).put(file.key, speechMp3());
      expect(await ok(alice.POST("/v1/transcripts/{transcript_id}/process", onTranscript(t.id)))).toEqual({ status: "ok" });
      // The status is still `error` until the new run starts: wait for `ended` itself.
      const ended = await untilSettled(alice, t.id, PROCESSING_MS, ["ended"]);
      expect(ended.duration).toBeGreaterThan(0);
      const second = await errorOf(t.id);
      expect(second.current_run_id).not.toBe(first.current_run_id);
    },
    2 * PROCESSING_MS + 30_000,
  );

  it(
    "shows run and step errors to the owner only",
    async () => {
      const { id } = await corruptTrackRecording("Bea");
      expect((await untilSettled(alice, id, PROCESSING_MS)).status).toBe("error");
      await ok(alice.PATCH("/v1/transcripts/{transcript_id}", { ...onTranscript(id), body: { share_mode: "public" } }));

      const mine = (await ok(alice.GET("/v1/transcripts/{transcript_id}/runs", onTranscript(id)))).runs[0]!;
      expect(mine.error).toMatch(/input is corrupt/);
      expect(mine.steps.some((s: { last_error: string | null }) => s.last_error !== null)).toBe(true);
      const bob = sys.client("bob");
      const theirs = await eventually(async () => {
        const { data } = await bob.GET("/v1/transcripts/{transcript_id}/runs", onTranscript(id));
        return data?.runs[0] ?? null;
      });
      expect(theirs.status).toBe("failed");
      expect(theirs.error).toBeNull();
      expect(theirs.steps.map((s: { last_error: string | null }) => s.last_error).filter((e: string | null) => e !== null)).toEqual([]);
    },
    PROCESSING_MS + 30_000,
  );

  it(
    "ends a platform recording with a corrupt track in error with the reason; process after the track is fixed ends it",
    async () => {
      const { id, key, tracks } = await corruptTrackRecording("Ann");
      const failed = await untilSettled(alice, id, PROCESSING_MS);
      expect(failed.status).toBe("error");
      const first = await errorOf(id);
      // Not retried (a corrupt file stays corrupt); the reason names the track and what is wrong with it.
      expect(first.error).toMatch(/^tracks\[0\] failed after 1 attempt\(s\): .*input is corrupt/);

      await tracks.put(key, speechMp3());
      expect(await ok(alice.POST("/v1/transcripts/{transcript_id}/process", onTranscript(id)))).toEqual({ status: "ok" });
      const ended = await untilSettled(alice, id, PROCESSING_MS, ["ended"]);
      expect((ended.participants ?? []).map((p) => p.name)).toEqual(["Ann"]);
      expect((await errorOf(id)).current_run_id).not.toBe(first.current_run_id);
    },
    2 * PROCESSING_MS + 30_000,
  );
});
