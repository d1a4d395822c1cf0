// Issue 15.1: an uploaded HLS playlist made ffmpeg read another user's stored audio into the
// uploader's transcript. A playlist is now refused at upload (400 naming the reason), and one that
// reaches a pipeline anyway (a platform track) ends the transcript in error with the reason; in
// neither case does any audio of the other user's file appear in the attacker's transcript.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { transcriptKeys, type RecordingReady } from "@scribe/contracts";
import { ok, type ScribeClient } from "@scribe/client";
import { connectDb, LocalStorage, openStorage, StorageConfig, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish, speechMp3, uploadWhole } from "./support/media";
import { onTranscript } from "./support/api";
import { untilSettled } from "./support/recorded-meeting";
import { startSystem, type TestSystem } from "./support/system";

const PROCESSING_MS = 240_000;

let sys: TestSystem;
let alice: ScribeClient;
let bob: ScribeClient;
let sql: Sql;
let root: string;
let storage: StorageConfig;
/** Bob's private upload, where local storage keeps it. */
let bobsFile: { key: string; path: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "scribe-untrusted-"));
  storage = StorageConfig.parse({ STORAGE_LOCAL_ROOT: root });
  sys = await startSystem({
    label: "untrusted",
    services: ["recordings", "projection", "transcription", "gateway"],
    env: { STORAGE_LOCAL_ROOT: root },
  });
  alice = sys.client("alice");
  bob = sys.client("bob");
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
  const t = await ok(bob.POST("/v1/transcripts", { body: { name: "Bob's private meeting" } }));
  await ok(upload(bob, t.id, speechMp3("Bob's confidential plans for the merger."), "meeting.mp3"));
  const bucket = openStorage(storage, storage.TRANSCRIPT_STORAGE_AWS_BUCKET_NAME) as LocalStorage;
  const key = transcriptKeys.upload(t.id, "mp3");
  bobsFile = { key, path: bucket.filePath(key) };
  expect((await readdir(join(bobsFile.path, ".."))).includes("upload.mp3")).toBe(true);
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await sys?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const upload = (client: ScribeClient, id: string, bytes: Buffer, filename: string) =>
  uploadWhole(client, id, bytes, filename, "application/octet-stream");

const playlist = (entry: string) => Buffer.from(`#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:5,\n${entry}\n#EXT-X-ENDLIST\n`);

describe("an uploaded playlist never reads another user's audio", () => {
  it.each([
    ["relative to where the upload is stored", () => `../${bobsFile.key}`],
    ["by absolute path", () => bobsFile.path],
    ["by file: URL", () => `file://${bobsFile.path}`],
  ])("a playlist naming Bob's file %s is refused at upload with the reason", async (_how, entry) => {
    const t = await ok(alice.POST("/v1/transcripts", { body: { name: "Mine" } }));
    const res = await upload(alice, t.id, playlist(entry()), "meeting.m3u8");
    expect(res.response.status).toBe(400);
    expect(res.error?.detail).toMatch(/Unsupported file format.*not a playlist/);
    expect((await ok(alice.GET("/v1/transcripts/{transcript_id}", onTranscript(t.id)))).status).toBe("idle");
    expect(
      (await alice.GET("/v1/transcripts/{transcript_id}/audio/mp3", { ...onTranscript(t.id), parseAs: "stream" })).response.status,
    ).toBe(404);
    // Nothing of the upload is kept: no object under Alice's transcript at all.
    expect(await readdir(join(bobsFile.path, "..", "..", t.id)).catch(() => [])).toEqual([]);
  });

  it(
    "a playlist that reaches a pipeline as a platform track ends the transcript in error with the reason",
    async () => {
      const bucket = storage.DAILYCO_STORAGE_AWS_BUCKET_NAME;
      const key = `meeting-${randomUUID()}/track-eve.webm`;
      await openStorage(storage, bucket).put(key, playlist(bobsFile.path));
      const rec: RecordingReady = {
        recording_id: `rec-${randomUUID()}`,
        kind: "multitrack",
        source: "platform",
        bucket,
        tracks: [{ key, start_offset_seconds: 0, participant_id: "p-eve", participant_name: "Eve", user_id: null, size: null }],
        file: null,
        transcript_id: null,
        meeting_id: randomUUID(),
        room_id: randomUUID(),
        room_name: "eves-room",
        owner_user_id: "alice",
        platform: "daily",
        recorded_at: new Date().toISOString(),
        duration_seconds: 5,
        participants: [{ participant_id: "p-eve", name: "Eve", user_id: null }],
      };
      await publish(sys.prefix, "recording.ready", rec);
      const id = await eventually(
        async () => (await sql<{ id: string }[]>`select id from transcript where recording_id = ${rec.recording_id}`)[0]?.id,
      );
      const settled = await untilSettled(alice, id, PROCESSING_MS);
      expect(settled.status).toBe("error");
      const [row] = await sql<{ error: string | null }[]>`select error from transcript where id = ${id}`;
      expect(row!.error).toMatch(/^tracks\[0\] failed after 1 attempt\(s\): .*unsupported media format/);
      expect(
        (await alice.GET("/v1/transcripts/{transcript_id}/audio/mp3", { ...onTranscript(id), parseAs: "stream" })).response.status,
      ).toBe(404);
      const text = JSON.stringify(await ok(alice.GET("/v1/transcripts/{transcript_id}", onTranscript(id))));
      expect(text).not.toMatch(/merger|confidential/i);
    },
    PROCESSING_MS + 30_000,
  );
});
