// Recordings and transcript media end to end through the HTTP API and the bus, run once per storage
// driver (local folder, real S3 server): ranges and HEAD byte-exact, permissions, uploads, platform
// recordings, video, zip export and media deletion.
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  INTERNAL_CALLER,
  topicsToWebvtt,
  transcriptKeys,
  recordingsOps,
  type RecordingAvailable,
  type TranscriptState,
} from "@scribe/contracts";
import { recordingsCommand } from "@scribe/cli";
import { StorageConfig, connectBus, loadConfig, openStorage, readSmallObject, rpcCall, type Bus, type ObjectStorage } from "@scribe/kit";
import { eventually, TEST_NATS_URL, startTestS3, type TestS3 } from "@scribe/kit/testing";
import type { ScribeClient } from "@scribe/client";
import type { Authenticator } from "@scribe/gateway";
import { SignJWT } from "jose";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerCaughtUp, multipart, publish, readZip, speechMp3, transcriptState, uploadChunk } from "./media";
import { TEST_SECRET, startSystem, streamEvents, type Client, type TestSystem } from "./system";
import { answer, onTranscript } from "./api";

const TRANSCRIPTS = "scribe-transcripts";
const DAILY = "daily-recordings";
const WHEREBY = "whereby-recordings";
const UPLOAD_LIMIT = 4 * 1024 * 1024;
const AUDIO = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

export function mediaSuite(driver: "local" | "s3"): void {
  let sys: TestSystem;
  let s3: TestS3 | null = null;
  let storageConfig: StorageConfig;
  let bus: Bus;
  let db: postgres.Sql;
  let alice: Client;
  let bob: Client;
  let anon: Client;
  /** The same callers through the typed client; the raw ones above are for headers, HEAD, Range and hand-built multipart. */
  const api: Record<"alice" | "bob" | "anon", ScribeClient> = {} as never;
  const status = async (pending: Promise<{ response: Response }>) => (await pending).response.status;
  const bucket = (name: string): ObjectStorage => openStorage(storageConfig, name);

  beforeAll(async () => {
    let env: Record<string, string>;
    if (driver === "s3") {
      s3 = await startTestS3([TRANSCRIPTS, DAILY, WHEREBY]);
      env = s3.env;
      storageConfig = s3.config();
    } else {
      env = { STORAGE_LOCAL_ROOT: mkdtempSync(join(tmpdir(), "scribe-media-")) };
      storageConfig = loadConfig(StorageConfig, env);
    }
    sys = await startSystem({
      label: `media${driver}`,
      services: ["recordings", "gateway"],
      env: { ...env, STORAGE_PURGE_INTERVAL_MS: "100", UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT) },
    });
    bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "test-rpc" });
    db = postgres(sys.db.url, { max: 2, onnotice: () => {} });
    alice = sys.as("alice");
    bob = sys.as("bob");
    anon = sys.as(null);
    api.alice = sys.client("alice");
    api.bob = sys.client("bob");
    api.anon = sys.client(null);
  });
  afterAll(async () => {
    await db?.end();
    await bus?.close();
    await sys?.stop();
    await s3?.stop();
  });

  /** Publish a transcript state (as the transcription service would) and wait until it is applied. */
  async function putTranscript(
    overrides: Partial<TranscriptState> = {},
    type: "transcript.created" | "transcript.updated" = "transcript.created",
  ) {
    const state = transcriptState(overrides.id ?? randomUUID(), overrides);
    await publish(sys.prefix, type, state);
    await eventually(
      async () => (await db`select 1 from recordings.transcript where id = ${state.id} and version >= ${state.version}`).length > 0,
      {
        message: `transcript ${state.id} v${state.version} applied`,
      },
    );
    return state;
  }

  async function available(overrides: Partial<RecordingAvailable>): Promise<RecordingAvailable> {
    const ev: RecordingAvailable = {
      recording_id: randomUUID(),
      meeting_id: randomUUID(),
      room_id: randomUUID(),
      room_name: "standup",
      room_owner_id: "alice",
      platform: "daily",
      kind: "multitrack",
      bucket: DAILY,
      tracks: [],
      file: null,
      recorded_at: new Date().toISOString(),
      duration_seconds: 120,
      store_video: false,
      participants: [],
      ...overrides,
    };
    await publish(sys.prefix, "recording.available", ev, "scribe/meetings");
    return ev;
  }

  const readyEvents = async (recordingId: string) =>
    (await streamEvents(sys.prefix, "RECORDINGS")).filter((e) => e.type === "recording.ready" && e.data.recording_id === recordingId);
  const exists = async (b: string, key: string) => (await bucket(b).head(key)) !== null;
  const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
  const keysUnder = async (b: string, prefix: string) => {
    const out: string[] = [];
    for await (const o of bucket(b).list(prefix)) out.push(o.key);
    return out.sort();
  };
  const internal = <O extends (typeof recordingsOps)[keyof typeof recordingsOps]>(op: O, req: Record<string, unknown>) =>
    rpcCall(bus, op, { caller: INTERNAL_CALLER, ...req } as never, { timeoutMs: 30_000 });

  describe(`transcript audio (${driver} storage)`, () => {
    let anonymousT: TranscriptState;
    let privateT: TranscriptState;
    let publicT: TranscriptState;
    let semiT: TranscriptState;
    const mp3 = (t: { id: string }) => `/v1/transcripts/${t.id}/audio/mp3`;
    /** The transcript's mp3 through the typed client (with `?token=` when given), as bytes. */
    const audio = (as: ScribeClient, t: { id: string }, token?: string) =>
      as.GET("/v1/transcripts/{transcript_id}/audio/mp3", {
        params: { path: { transcript_id: t.id }, query: token === undefined ? {} : { token } },
        parseAs: "arrayBuffer",
      });

    beforeAll(async () => {
      [anonymousT, privateT, publicT, semiT] = await Promise.all([
        putTranscript({ user_id: null }),
        putTranscript({ user_id: "alice", share_mode: "private" }),
        putTranscript({ user_id: "alice", share_mode: "public" }),
        putTranscript({ user_id: "alice", share_mode: "semi-private" }),
      ]);
      for (const t of [anonymousT, privateT, publicT, semiT]) await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(t.id), AUDIO);
    });

    it("serves the whole file with the reference's headers", async () => {
      // Raw here and for HEAD and Range below: the headers and bytes on the wire are what these check.
      const res = await anon(mp3(anonymousT));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("audio/mpeg");
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expect(res.headers.get("content-encoding")).toBe("identity");
      expect(res.headers.get("content-length")).toBe("1000");
      expect(res.headers.get("content-disposition")).toBe(`inline; filename=recording_${anonymousT.id.split("-")[0]}.mp3`);
      expect(res.headers.get("access-control-expose-headers")).toContain("content-range");
      expect(Buffer.compare(await bytesOf(res), AUDIO)).toBe(0);
    });

    it("answers HEAD with the whole file's headers, no body, no disposition, whatever the Range", async () => {
      for (const headers of [{}, { range: "bytes=0-9" }, { range: "bytes=5000-" }] as Record<string, string>[]) {
        const res = await anon(mp3(anonymousT), { method: "HEAD", headers });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("audio/mpeg");
        expect(res.headers.get("content-length")).toBe("1000");
        expect(res.headers.get("accept-ranges")).toBe("bytes");
        expect(res.headers.get("content-disposition")).toBeNull();
        expect((await bytesOf(res)).length).toBe(0);
      }
      expect((await anon(`/v1/transcripts/${randomUUID()}/audio/mp3`, { method: "HEAD" })).status).toBe(404);
    });

    it.each([
      ["bytes=0-99", 0, 99],
      ["bytes=100-", 100, 999],
      ["bytes=-100", 900, 999],
      ["bytes=0-0", 0, 0],
      ["bytes=999-999", 999, 999],
      ["bytes=990-5000", 990, 999],
      ["bytes=-5000", 0, 999],
    ])("answers Range %s with 206 and exactly bytes %i-%i", async (range, start, end) => {
      const res = await anon(mp3(anonymousT), { headers: { range } });
      expect(res.status).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers.get("content-length")).toBe(String(end - start + 1));
      expect(res.headers.get("content-type")).toBe("audio/mpeg");
      expect(Buffer.compare(await bytesOf(res), AUDIO.subarray(start, end + 1))).toBe(0);
    });

    it.each(["bytes=1000-", "bytes=5-2", "bytes=0-1,5-6", "bytes=-0", "items=0-5", "bytes=abc", "bytes=-"])(
      "answers 416 to the unsatisfiable, malformed or multiple range %s",
      async (range) => {
        const res = await anon(mp3(anonymousT), { headers: { range } });
        expect(res.status).toBe(416);
        expect(res.headers.get("content-range")).toBe("bytes */1000");
        expect(await res.json()).toEqual({ detail: `Invalid request range (Range:'${range}')` });
      },
    );

    it("serves anonymous transcripts to everyone and owned ones only to callers with an identity", async () => {
      expect(await status(audio(api.bob, anonymousT))).toBe(200);
      expect(await answer(audio(api.anon, publicT))).toEqual({ status: 401, body: { detail: "Authentication required" } });
      expect(await status(audio(api.anon, privateT))).toBe(401);
      expect(await status(audio(api.alice, privateT))).toBe(200);
      expect(await answer(audio(api.bob, privateT))).toEqual({ status: 403, body: { detail: "Transcript access denied" } });
      expect(await status(audio(api.bob, semiT))).toBe(200);
      expect(await status(audio(api.bob, publicT))).toBe(200);
      expect(await answer(audio(api.anon, { id: randomUUID() }))).toEqual({ status: 404, body: { detail: "Transcript not found" } });
    });

    it("takes the identity from ?token= when no header carries one", async () => {
      const heard = await audio(api.anon, privateT, await sys.token("alice"));
      expect(heard.response.status).toBe(200);
      expect(Buffer.compare(Buffer.from(heard.data!), AUDIO)).toBe(0);
      expect(await status(audio(api.anon, privateT, await sys.token("bob")))).toBe(403);
      const expired = await new SignJWT({ email: "alice@example.com" })
        .setProtectedHeader({ alg: "HS256" })
        .setSubject("alice")
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(new TextEncoder().encode(TEST_SECRET));
      for (const bad of [expired, "garbage"]) {
        const { error, response } = await audio(api.anon, privateT, bad);
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe("Bearer");
        expect(error).toEqual({ detail: "Invalid or expired token" });
      }
      // A header identity wins over the token.
      expect(await status(audio(api.bob, privateT, await sys.token("alice")))).toBe(403);
    });

    it("opens one transcript's audio with a media token, and nothing else", async () => {
      const auth = sys.process.services.find((s) => s.name === "gateway")!.exports.auth as Authenticator;
      const token = await auth.mintMediaToken({ userId: "alice", transcriptId: privateT.id });
      const heard = await audio(api.anon, privateT, token);
      expect(heard.response.status).toBe(200);
      expect(Buffer.compare(Buffer.from(heard.data!), AUDIO)).toBe(0);
      const other = await putTranscript({ user_id: "alice" });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(other.id), AUDIO);
      expect(await status(audio(api.anon, other, token))).toBe(401);
      const videoFile = api.anon.GET("/v1/transcripts/{transcript_id}/video/file", {
        params: { path: { transcript_id: privateT.id }, query: { token } },
        parseAs: "arrayBuffer",
      });
      expect(await status(videoFile)).toBe(401);
    });

    it("answers 404 when no audio is stored, and for soft-deleted transcripts", async () => {
      const empty = await putTranscript({ user_id: "alice" });
      expect(await answer(audio(api.alice, empty))).toEqual({ status: 404, body: { detail: "Audio file not found" } });
      const t = await putTranscript({ user_id: "alice" });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(t.id), AUDIO);
      await putTranscript({ ...t, version: 2, deleted_at: new Date().toISOString() }, "transcript.updated");
      expect((await audio(api.alice, t)).error).toEqual({ detail: "Transcript not found" });
    });

    it("answers 'Audio unavailable due to privacy settings' once the audio was deleted for consent", async () => {
      const flagged = await putTranscript({ user_id: "alice", audio_deleted: true });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(flagged.id), AUDIO);
      expect(await answer(audio(api.alice, flagged))).toEqual({
        status: 404,
        body: { detail: "Audio unavailable due to privacy settings" },
      });

      const t = await putTranscript({ user_id: "alice" });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(t.id), AUDIO);
      expect(await status(audio(api.alice, t))).toBe(200);
      await internal(recordingsOps.deleteMedia, { transcript_id: t.id, parts: ["mixdown"], reason: "consent" });
      expect(await exists(TRANSCRIPTS, transcriptKeys.mp3(t.id))).toBe(false);
      expect((await audio(api.alice, t)).error).toEqual({ detail: "Audio unavailable due to privacy settings" });
    });

    it("serves the waveform to signed-in readers only", async () => {
      await bucket(TRANSCRIPTS).put(transcriptKeys.waveform(privateT.id), JSON.stringify([0, 0.5, 1, 0.25]));
      const waveform = (as: ScribeClient, t: { id: string }) =>
        as.GET("/v1/transcripts/{transcript_id}/audio/waveform", onTranscript(t.id));
      expect(await answer(waveform(api.alice, privateT))).toEqual({ status: 200, body: { data: [0, 0.5, 1, 0.25] } });
      expect(await status(waveform(api.anon, anonymousT))).toBe(401);
      expect(await status(waveform(api.bob, privateT))).toBe(403);
      expect(await answer(waveform(api.alice, publicT))).toEqual({ status: 404, body: { detail: "Audio not found" } });
    });
  });

  describe(`platform recordings (${driver} storage)`, () => {
    const track = (key: string, kind: "audio" | "video", participant: string) => ({
      key,
      kind,
      start_offset_seconds: 1.5,
      participant_id: participant,
      participant_name: participant,
      user_id: null,
      size: 3,
    });

    it("keeps platform A's audio tracks, deletes its video tracks when the room does not store video, and emits recording.ready once", async () => {
      const folder = `standup-20260101120000-${randomUUID().slice(0, 8)}`;
      const tracks = [
        track(`${folder}/p1-cam-audio.webm`, "audio", "p1"),
        track(`${folder}/p1-cam-video.webm`, "video", "p1"),
        track(`${folder}/p2-cam-audio.webm`, "audio", "p2"),
        track(`${folder}/p2-cam-video.webm`, "video", "p2"),
      ];
      for (const t of tracks) await bucket(DAILY).put(t.key, "abc");
      const ev = await available({ tracks, store_video: false });

      const [ready] = await eventually(async () => {
        const events = await readyEvents(ev.recording_id);
        return events.length ? events : null;
      });
      expect(ready!.data).toMatchObject({
        recording_id: ev.recording_id,
        kind: "multitrack",
        source: "platform",
        bucket: DAILY,
        transcript_id: null,
        meeting_id: ev.meeting_id,
        owner_user_id: "alice",
        platform: "daily",
      });
      expect((ready!.data.tracks as { key: string }[]).map((t) => t.key)).toEqual([tracks[0]!.key, tracks[2]!.key]);
      await eventually(async () => !(await exists(DAILY, tracks[1]!.key)) && !(await exists(DAILY, tracks[3]!.key)), {
        message: "video tracks deleted",
      });
      expect(await exists(DAILY, tracks[0]!.key)).toBe(true);
      expect(await exists(DAILY, tracks[2]!.key)).toBe(true);

      // The same recording announced again (webhook and poll) starts nothing new.
      await publish(sys.prefix, "recording.available", ev, "scribe/meetings");
      await eventually(() => consumerCaughtUp(sys.prefix, "MEETINGS", "recordings.meetings"), { message: "duplicate consumed" });
      expect(await readyEvents(ev.recording_id)).toHaveLength(1);
      const view = await internal(recordingsOps.get, { recording_id: ev.recording_id });
      expect(view.files.map((f) => [f.role, f.deleted_at !== null])).toEqual([
        ["audio_track", false],
        ["video_track", true],
        ["audio_track", false],
        ["video_track", true],
      ]);
    });

    it("keeps video when the room stores it, and deletes it on demand (scribe recordings delete-video) leaving audio", async () => {
      const tracks = [track(`keep-${randomUUID()}/a.webm`, "audio", "p1"), track(`keep-${randomUUID()}/v.webm`, "video", "p1")];
      for (const t of tracks) await bucket(DAILY).put(t.key, "abc");
      const ev = await available({ tracks, store_video: true });
      await eventually(async () => (await readyEvents(ev.recording_id)).length === 1);
      await eventually(() => consumerCaughtUp(sys.prefix, "MEETINGS", "recordings.meetings"));
      expect(await exists(DAILY, tracks[1]!.key)).toBe(true);

      const lines: string[] = [];
      await recordingsCommand(sys.env, ["delete-video", ev.recording_id], (l) => lines.push(l));
      expect(lines).toEqual([`deleted ${DAILY}/${tracks[1]!.key}`]);
      expect(await exists(DAILY, tracks[1]!.key)).toBe(false);
      expect(await exists(DAILY, tracks[0]!.key)).toBe(true);
      await expect(recordingsCommand(sys.env, ["delete-video", "no-such-recording"], () => {})).rejects.toMatchObject({
        kind: "not_found",
      });
    });

    it("hands platform B's single file on as a file recording", async () => {
      const key = `room-2026-01-01T12:00:00Z-${randomUUID()}.mp4`;
      await bucket(WHEREBY).put(key, "abc");
      const ev = await available({ platform: "whereby", kind: "file", bucket: WHEREBY, file: { key, size: 3 } });
      const [ready] = await eventually(async () => {
        const events = await readyEvents(ev.recording_id);
        return events.length ? events : null;
      });
      expect(ready!.data).toMatchObject({
        kind: "file",
        source: "platform",
        bucket: WHEREBY,
        file: { key, size: 3 },
        tracks: [],
        platform: "whereby",
      });
    });

    it("gives a presigned URL of the meeting's composed video only when the room stores video", async () => {
      const meetingId = randomUUID();
      const t = await putTranscript({ user_id: "alice", meeting_id: meetingId, share_mode: "semi-private" });
      const videoUrl = (as: ScribeClient, id: string) => as.GET("/v1/transcripts/{transcript_id}/video/url", onTranscript(id));
      expect(await answer(videoUrl(api.alice, t.id))).toEqual({ status: 404, body: { detail: "No video available" } });
      expect((await videoUrl(api.alice, (await putTranscript({ user_id: "alice" })).id)).response.status).toBe(404);

      const key = `composed/${meetingId}.mp4`;
      await bucket(DAILY).put(key, "composed video bytes");
      await available({
        meeting_id: meetingId,
        kind: "composed_video",
        file: { key, size: 20 },
        store_video: true,
        duration_seconds: 120.4,
      });
      const body = await eventually(async () => (await videoUrl(api.alice, t.id)).data ?? null);
      expect(body).toMatchObject({ duration: 120, content_type: "video/mp4" });
      // S3 answers the presigned URL itself; the local driver's URL is the gateway's own file route (raw: a Range request).
      const video = driver === "s3" ? await fetch(body.url) : await bob(new URL(body.url).pathname, { headers: { range: "bytes=9-13" } });
      if (driver === "s3") {
        expect(video.status).toBe(200);
        expect(video.headers.get("content-type")).toBe("video/mp4");
        expect(video.headers.get("content-disposition")).toBe("inline");
        expect(await video.text()).toBe("composed video bytes");
      } else {
        expect(video.status).toBe(206);
        expect(await video.text()).toBe("video");
      }
      expect((await videoUrl(api.anon, t.id)).response.status).toBe(401);
      const privateT = await putTranscript({ user_id: "alice", meeting_id: meetingId });
      expect((await videoUrl(api.bob, privateT.id)).response.status).toBe(403);

      const dropped = randomUUID();
      const droppedT = await putTranscript({ user_id: "alice", meeting_id: dropped });
      await bucket(DAILY).put(`composed/${dropped}.mp4`, "x");
      await available({
        meeting_id: dropped,
        kind: "composed_video",
        file: { key: `composed/${dropped}.mp4`, size: 1 },
        store_video: false,
      });
      await eventually(async () => !(await exists(DAILY, `composed/${dropped}.mp4`)), {
        message: "composed video without store_video deleted",
      });
      expect((await videoUrl(api.alice, droppedT.id)).response.status).toBe(404);
    });
  });

  describe(`zip export and media deletion (${driver} storage)`, () => {
    it("streams the owner a zip of the audio, the tracks, the composed video and metadata.json", async () => {
      const meetingId = randomUUID();
      const tracks = [`zip-${meetingId}/alice-cam-audio.webm`, `zip-${meetingId}/bob-cam-audio.webm`];
      for (const [i, k] of tracks.entries()) await bucket(DAILY).put(k, `track ${i}`);
      const ev = await available({
        meeting_id: meetingId,
        tracks: tracks.map((key, i) => ({
          key,
          kind: "audio" as const,
          start_offset_seconds: i,
          participant_id: `p${i}`,
          participant_name: null,
          user_id: null,
          size: 7,
        })),
      });
      await bucket(DAILY).put(`zip-${meetingId}/composed.mp4`, "video!");
      await available({
        meeting_id: meetingId,
        kind: "composed_video",
        file: { key: `zip-${meetingId}/composed.mp4`, size: 6 },
        store_video: true,
      });
      const t = await putTranscript({
        user_id: "alice",
        share_mode: "public",
        meeting_id: meetingId,
        recording_id: ev.recording_id,
        title: "Weekly",
        duration: 42000,
      });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(t.id), AUDIO);
      const topic = {
        id: "t1",
        title: "Budget",
        summary: "About money",
        timestamp: 0,
        duration: 5,
        transcript: "hello",
        words: [{ text: "hello", start: 0, end: 0.5, speaker: 0 }],
      };
      await publish(sys.prefix, "transcript.topic.upserted", { transcript_id: t.id, version: 2, position: 0, topic });
      await eventually(async () => (await db`select 1 from recordings.transcript_topic where transcript_id = ${t.id}`).length === 1);
      await eventually(
        async () => (await db`select 1 from recordings.recording where kind = 'composed_video' and meeting_id = ${meetingId}`).length === 1,
      );

      // Raw: the reference's headers on the wire are checked too.
      const res = await alice(`/v1/transcripts/${t.id}/download/zip`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/zip");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename=transcript_${t.id.split("-")[0]}.zip`);
      const zip = await readZip(await bytesOf(res));
      expect([...zip.keys()].sort()).toEqual([
        "audio.mp3",
        "cloud_video.mp4",
        "metadata.json",
        "tracks/alice-cam-audio.webm",
        "tracks/bob-cam-audio.webm",
      ]);
      expect(Buffer.compare(zip.get("audio.mp3")!, AUDIO)).toBe(0);
      expect(zip.get("tracks/bob-cam-audio.webm")!.toString()).toBe("track 1");
      expect(zip.get("cloud_video.mp4")!.toString()).toBe("video!");
      const meta = JSON.parse(zip.get("metadata.json")!.toString());
      expect(Object.keys(meta)).toEqual([
        "id",
        "title",
        "created_at",
        "duration",
        "source_language",
        "target_language",
        "short_summary",
        "long_summary",
        "topics",
        "participants",
        "action_items",
        "webvtt",
        "recording_id",
        "meeting_id",
      ]);
      expect(meta).toMatchObject({
        id: t.id,
        title: "Weekly",
        duration: 42000,
        recording_id: ev.recording_id,
        meeting_id: meetingId,
        topics: [topic],
        // Rendered from the copied topics (transcript.updated leaves an unchanged WebVTT out).
        webvtt: topicsToWebvtt([topic]),
      });
      expect(zip.get("metadata.json")!.toString()).toContain('\n  "title": "Weekly"');

      // Files that went missing from storage, and audio deleted for consent, are left out.
      await bucket(DAILY).delete([tracks[0]!]);
      await internal(recordingsOps.deleteMedia, { transcript_id: t.id, parts: ["mixdown"], reason: "consent" });
      const download = (as: ScribeClient, id: string) =>
        as.GET("/v1/transcripts/{transcript_id}/download/zip", { ...onTranscript(id), parseAs: "arrayBuffer" });
      const partial = await readZip(Buffer.from((await download(api.alice, t.id)).data!));
      expect([...partial.keys()].sort()).toEqual(["cloud_video.mp4", "metadata.json", "tracks/bob-cam-audio.webm"]);

      expect(await status(download(api.anon, t.id))).toBe(401);
      expect(await answer(download(api.bob, t.id))).toEqual({ status: 403, body: { detail: "Not authorized" } });
      expect(await status(download(api.alice, randomUUID()))).toBe(404);
    });

    it("delete_media removes every stored file of a recording, and nothing else", async () => {
      const meetingId = randomUUID();
      const prefix = `del-${meetingId}`;
      const keys = { a1: `${prefix}/a1.webm`, a2: `${prefix}/a2.webm`, v1: `${prefix}/v1.webm`, video: `${prefix}/composed.mp4` };
      for (const k of Object.values(keys)) await bucket(DAILY).put(k, "x");
      const ev = await available({
        meeting_id: meetingId,
        store_video: true,
        tracks: [
          { key: keys.a1, kind: "audio", start_offset_seconds: 0, participant_id: "1", participant_name: null, user_id: null, size: 1 },
          { key: keys.v1, kind: "video", start_offset_seconds: 0, participant_id: "1", participant_name: null, user_id: null, size: 1 },
          { key: keys.a2, kind: "audio", start_offset_seconds: 0, participant_id: "2", participant_name: null, user_id: null, size: 1 },
        ],
      });
      await available({ meeting_id: meetingId, kind: "composed_video", file: { key: keys.video, size: 1 }, store_video: true });
      // Bystanders: another meeting's recording and another transcript's audio.
      const otherKey = `other-${meetingId}/a.webm`;
      await bucket(DAILY).put(otherKey, "y");
      const other = await available({
        tracks: [
          { key: otherKey, kind: "audio", start_offset_seconds: 0, participant_id: "9", participant_name: null, user_id: null, size: 1 },
        ],
      });
      const t = await putTranscript({ user_id: null, meeting_id: meetingId, recording_id: ev.recording_id });
      const bystander = await putTranscript({ user_id: null });
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(t.id), AUDIO);
      await bucket(TRANSCRIPTS).put(transcriptKeys.waveform(t.id), "[1]");
      await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(bystander.id), AUDIO);
      await eventually(
        async () =>
          (await db`select 1 from recordings.recording where id = ${other.recording_id} or meeting_id = ${meetingId}`).length === 3,
      );

      await expect(
        rpcCall(bus, recordingsOps.deleteMedia, {
          caller: { userId: "alice", email: null, via: "bearer" },
          transcript_id: t.id,
          parts: ["tracks"],
          reason: "consent",
        }),
      ).rejects.toMatchObject({ kind: "forbidden" });

      const result = await internal(recordingsOps.deleteMedia, {
        transcript_id: t.id,
        parts: ["tracks", "mixdown", "video", "upload"],
        reason: "retention",
      });
      const expected = [
        { bucket: DAILY, key: keys.a1, part: "tracks" },
        { bucket: DAILY, key: keys.v1, part: "video" },
        { bucket: DAILY, key: keys.a2, part: "tracks" },
        { bucket: DAILY, key: keys.video, part: "video" },
        { bucket: TRANSCRIPTS, key: transcriptKeys.mp3(t.id), part: "mixdown" },
      ];
      const sort = (l: { key: string }[]) => [...l].sort((x, y) => x.key.localeCompare(y.key));
      expect(sort(result.deleted)).toEqual(sort(expected));
      for (const k of Object.values(keys)) expect(await exists(DAILY, k)).toBe(false);
      expect(await exists(TRANSCRIPTS, transcriptKeys.mp3(t.id))).toBe(false);
      expect(await exists(DAILY, otherKey)).toBe(true);
      expect(await exists(TRANSCRIPTS, transcriptKeys.mp3(bystander.id))).toBe(true);
      expect(await exists(TRANSCRIPTS, transcriptKeys.waveform(t.id))).toBe(true);
      const view = await internal(recordingsOps.get, { recording_id: ev.recording_id });
      expect(view.files.every((f) => f.deleted_reason === "retention" && f.deleted_at !== null)).toBe(true);

      // Idempotent: the same call again deletes nothing more and reports the same files.
      const again = await internal(recordingsOps.deleteMedia, {
        transcript_id: t.id,
        parts: ["tracks", "mixdown", "video", "upload"],
        reason: "retention",
      });
      expect(sort(again.deleted)).toEqual(sort(expected));
    });
  });

  describe(`upload (${driver} storage)`, () => {
    /** Chunk `n` of `total` through the typed client: its status and body. */
    const upload = (as: ScribeClient, id: string, n: number, total: number, filename: string, bytes: Buffer) =>
      answer(uploadChunk(as, id, { chunk_number: n, total_chunks: total }, bytes, filename, { type: "application/octet-stream" }));

    it("assembles chunks in chunk order (whatever the arrival order) into a stored recording and emits recording.ready", async () => {
      const speech = speechMp3();
      const t = await putTranscript({ user_id: "alice", meeting_id: null });
      const cuts = [0, Math.floor(speech.length / 3), Math.floor((2 * speech.length) / 3), speech.length];
      for (const i of [1, 0, 2]) {
        const res = await upload(api.alice, t.id, i, 3, "meeting.mp3", speech.subarray(cuts[i], cuts[i + 1]));
        expect(res).toEqual({ status: 200, body: { status: "ok" } });
      }
      const key = transcriptKeys.upload(t.id, "mp3");
      expect(Buffer.compare(await readSmallObject(bucket(TRANSCRIPTS), key), speech)).toBe(0);
      expect(await keysUnder(TRANSCRIPTS, `${t.id}/`)).toEqual([key]);
      const ready = await eventually(async () =>
        (await streamEvents(sys.prefix, "RECORDINGS")).find((e) => e.type === "recording.ready" && e.data.transcript_id === t.id),
      );
      expect(ready.data).toMatchObject({
        kind: "file",
        source: "upload",
        bucket: TRANSCRIPTS,
        transcript_id: t.id,
        owner_user_id: "alice",
        file: { key, size: speech.length },
        tracks: [],
      });
      expect(ready.data.duration_seconds as number).toBeGreaterThan(1);

      const again = await upload(api.alice, t.id, 0, 1, "again.mp3", speech);
      expect(again).toEqual({ status: 400, body: { detail: "There is already an upload in progress" } });
    });

    it("keeps nothing of a chunk whose client goes away mid-upload, and takes the upload again afterwards", async () => {
      const t = await putTranscript({ user_id: "alice" });
      const token = await sys.token("alice");
      const { port } = new URL(sys.baseUrl);
      const boundary = "----scribeabort";
      await new Promise<void>((resolve) => {
        const req = request({
          host: "127.0.0.1",
          port: Number(port),
          method: "POST",
          path: `/v1/transcripts/${t.id}/record/upload?chunk_number=0&total_chunks=1`,
          headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
        });
        req.on("error", () => resolve());
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="chunk"; filename="a.mp3"\r\n\r\n`);
        req.write(Buffer.alloc(256 * 1024, 1), () =>
          setImmediate(() => {
            req.destroy();
            resolve();
          }),
        );
      });
      await eventually(
        async () =>
          (await keysUnder(TRANSCRIPTS, `${t.id}/`)).length === 0 &&
          (await db`select 1 from recordings.upload_chunk where transcript_id = ${t.id}`).length === 0,
        {
          message: "nothing left of the aborted chunk",
        },
      );
      const res = await upload(api.alice, t.id, 0, 1, "meeting.mp3", speechMp3());
      expect(res.status).toBe(200);
    });

    it("refuses a text file named .mp3 with 400 and keeps nothing", async () => {
      const t = await putTranscript({ user_id: "alice" });
      const res = await upload(api.alice, t.id, 0, 1, "notes.mp3", Buffer.from("These are meeting notes, not audio.\n".repeat(50)));
      expect(res).toEqual({ status: 400, body: { detail: "File has no audio stream" } });
      expect(await keysUnder(TRANSCRIPTS, `${t.id}/`)).toEqual([]);
      expect((await streamEvents(sys.prefix, "RECORDINGS")).some((e) => e.data.transcript_id === t.id)).toBe(false);
    });

    it("refuses locked transcripts, other users' private transcripts, missing parts and files over the limit", async () => {
      const speech = speechMp3();
      const locked = await putTranscript({ user_id: "alice", locked: true });
      const res = await upload(api.alice, locked.id, 0, 1, "a.mp3", speech);
      expect(res).toEqual({ status: 400, body: { detail: "Transcript is locked" } });

      const t = await putTranscript({ user_id: "alice" });
      expect((await upload(api.bob, t.id, 0, 1, "a.mp3", speech)).status).toBe(403);
      expect((await upload(api.alice, randomUUID(), 0, 1, "a.mp3", speech)).status).toBe(404);
      expect((await upload(api.alice, t.id, 0, 1, "a.mp3", Buffer.alloc(UPLOAD_LIMIT + 1))).status).toBe(413);
      expect(await keysUnder(TRANSCRIPTS, `${t.id}/`)).toEqual([]);

      // Raw: a form whose file field has the wrong name, which the typed body cannot say.
      const noField = await alice(`/v1/transcripts/${t.id}/record/upload?chunk_number=0&total_chunks=1`, {
        method: "POST",
        ...(({ body, contentType }) => ({ body, headers: { "content-type": contentType } }))(multipart("file", "a.mp3", speech)),
      });
      expect(noField.status).toBe(422);
      expect((await noField.json()).detail[0].loc).toEqual(["body", "chunk"]);
      expect((await upload(api.alice, t.id, 0, 0, "a.mp3", speech)).status).toBe(422);
      expect((await upload(api.alice, t.id, 2, 2, "a.mp3", speech)).status).toBe(422);

      const gap = await upload(api.alice, t.id, 1, 2, "a.mp3", speech);
      expect(gap).toEqual({ status: 400, body: { detail: "Upload incomplete: chunk(s) 0 missing" } });
    });
  });
}
