// Recording rules: what a platform recording becomes, upload names and chunk bookkeeping.
import { describe, expect, it } from "vitest";
import type { RecordingAvailable } from "@scribe/contracts";
import { planPlatformRecording } from "../src/domain/recordings";
import { extensionOf, isChunkKey, missingChunks, planUploadRecording } from "../src/domain/upload";
import { assertAudioRead, assertOwner, assertRead, type KnownTranscript } from "../src/domain/access";

const now = new Date("2026-01-01T12:00:00Z");
const track = (key: string, kind: "audio" | "video") => ({
  key,
  kind,
  start_offset_seconds: 0,
  participant_id: key,
  participant_name: null,
  user_id: null,
  size: 1,
});
function event(overrides: Partial<RecordingAvailable> = {}): RecordingAvailable {
  return {
    recording_id: "rec-1",
    meeting_id: "m-1",
    room_id: "r-1",
    room_name: "standup",
    room_owner_id: "alice",
    platform: "daily",
    kind: "multitrack",
    bucket: "daily",
    tracks: [],
    file: null,
    recorded_at: now.toISOString(),
    duration_seconds: 60,
    store_video: false,
    participants: [],
    ...overrides,
  };
}

describe("platform recordings", () => {
  it("marks video tracks for deletion when the room does not store video, and hands on audio tracks only", () => {
    const plan = planPlatformRecording(event({ tracks: [track("f/a.webm", "audio"), track("f/v.webm", "video")] }), now);
    expect(plan.files.map((f) => [f.role, f.delete_requested_at])).toEqual([
      ["audio_track", null],
      ["video_track", now],
    ]);
    expect(plan.ready?.tracks.map((t) => t.key)).toEqual(["f/a.webm"]);
    expect(plan.ready).toMatchObject({ kind: "multitrack", source: "platform", owner_user_id: "alice", transcript_id: null });
    expect(plan.recording.object_key).toBe("f");
  });

  it("keeps video tracks when the room stores video", () => {
    const plan = planPlatformRecording(event({ store_video: true, tracks: [track("f/v.webm", "video"), track("f/a.webm", "audio")] }), now);
    expect(plan.files.every((f) => f.delete_requested_at === null)).toBe(true);
  });

  it("starts nothing for a multitrack recording without audio or for a composed video", () => {
    expect(planPlatformRecording(event({ tracks: [track("f/v.webm", "video")] }), now).ready).toBeNull();
    const video = planPlatformRecording(event({ kind: "composed_video", file: { key: "c.mp4", size: 1 }, store_video: true }), now);
    expect(video.ready).toBeNull();
    expect(video.files[0]).toMatchObject({ role: "composed_video", delete_requested_at: null });
  });

  it("hands platform B's single file on as a file recording", () => {
    const plan = planPlatformRecording(event({ platform: "whereby", kind: "file", file: { key: "room-x.mp4", size: 9 } }), now);
    expect(plan.ready).toMatchObject({ kind: "file", file: { key: "room-x.mp4", size: 9 }, tracks: [] });
    expect(plan.files[0]!.role).toBe("file");
  });
});

describe("uploads", () => {
  it("takes the extension after the last dot, falling back to bin for anything unsafe", () => {
    expect(extensionOf("meeting.final.MP3")).toBe("mp3");
    expect(extensionOf("noext")).toBe("bin");
    expect(extensionOf("evil.../../x")).toBe("bin");
  });
  it("lists missing chunks", () => expect(missingChunks(4, [0, 2])).toEqual([1, 3]));
  it("makes an accepted upload a file recording of its transcript, owned by the transcript's owner", () => {
    const transcript = { id: "t1", user_id: "alice", meeting_id: "m1", room_id: "r1" } as never;
    const plan = planUploadRecording({
      recordingId: "rec",
      transcript,
      bucket: "b",
      key: "t1/upload.mp3",
      size: 10,
      durationSeconds: 3.5,
      now,
    });
    expect(plan.ready).toMatchObject({
      source: "upload",
      kind: "file",
      transcript_id: "t1",
      owner_user_id: "alice",
      file: { key: "t1/upload.mp3", size: 10 },
    });
    expect(plan.file).toMatchObject({ role: "upload", key: "t1/upload.mp3", delete_requested_at: null });
    expect(plan.recording).toMatchObject({ source: "upload", transcript_id: "t1", meeting_id: "m1", duration_seconds: 3.5 });
  });
  it("accepts only the chunk key it handed out", () => {
    expect(isChunkKey("t1", 2, "t1/upload_2.mp3")).toBe(true);
    expect(isChunkKey("t1", 2, "t1/upload_3.mp3")).toBe(false);
    expect(isChunkKey("t1", 2, "t2/upload_2.mp3")).toBe(false);
    expect(isChunkKey("t1", 2, "t1/upload_2.mp3/../../x")).toBe(false);
  });
});

describe("media access", () => {
  const state = (user_id: string | null, share_mode: "public" | "semi-private" | "private" = "private", destroyed = false) =>
    ({ state: { id: "t", user_id, share_mode, deleted_at: null }, destroyed }) as unknown as KnownTranscript;
  const anon = { userId: null, email: null, via: "anonymous" as const };
  const bob = { userId: "bob", email: null, via: "bearer" as const };

  it("gives audio of owned transcripts only to callers with an identity, even when public", () => {
    expect(() => assertAudioRead(state("alice", "public"), anon)).toThrow("Authentication required");
    expect(() => assertAudioRead(state(null), anon)).not.toThrow();
    expect(() => assertAudioRead(null, anon)).toThrow("Transcript not found");
  });
  it("applies READ, and OWNER for the zip", () => {
    expect(() => assertRead(state("alice"), bob)).toThrow("Transcript access denied");
    expect(() => assertRead(state("alice", "semi-private"), bob)).not.toThrow();
    expect(() => assertOwner(state("alice", "public"), bob)).toThrow("Not authorized");
    expect(() => assertRead(state("alice", "public", true), bob)).toThrow("Transcript not found");
  });
});
