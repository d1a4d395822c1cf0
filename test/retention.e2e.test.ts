// Retention on a public instance, once with the local storage driver and once against a real
// S3-protocol server: an old anonymous transcript loses its meeting (consent and participants with
// it), its recordings and every stored file; a newer anonymous one and an owned one keep everything.
// The transcription service's run is driven with a clock past the limit: it destroys the transcript
// (transcript.destroyed, reason retention) and announces it expired, and the others follow.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { transcriptKeys, type RecordingAvailable, type TranscriptState } from "@scribe/contracts";
import { StorageConfig, loadConfig, openStorage, type ObjectStorage } from "@scribe/kit";
import { eventually, startTestS3, type TestS3 } from "@scribe/kit/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish, transcriptState } from "./support/media";
import { notifierCaughtUp } from "./support/notifier";
import { ok } from "@scribe/client";
import { onRoomName } from "./support/api";
import { startSystem, streamEvents, type TestSystem } from "./support/system";
import { transcriptionHooks, type ExpireTranscripts } from "./support/transcription";
import { startDailySimulator, type DailySimulator } from "@scribe/simulators";

const TRANSCRIPTS = "scribe-transcripts";
const DAILY = "daily-recordings";
const DAY = 86_400_000;

function retentionScenario(driver: "local" | "s3"): void {
  describe(`retention (${driver} storage)`, () => {
    let sys: TestSystem;
    let s3: TestS3 | null = null;
    let daily: DailySimulator;
    let db: postgres.Sql;
    let storage: StorageConfig;
    let expire: ExpireTranscripts;
    const bucket = (name: string): ObjectStorage => openStorage(storage, name);
    const start = new Date();

    interface Case {
      transcript: TranscriptState;
      meetingId: string;
      recordingId: string;
      trackKeys: string[];
    }
    const cases: Record<"oldAnonymous" | "newAnonymous" | "oldOwned", Case> = {} as never;

    beforeAll(async () => {
      let env: Record<string, string>;
      if (driver === "s3") {
        s3 = await startTestS3([TRANSCRIPTS, DAILY, "whereby-recordings"]);
        env = s3.env;
        storage = s3.config();
      } else {
        env = { STORAGE_LOCAL_ROOT: mkdtempSync(join(tmpdir(), "scribe-retention-")) };
        storage = loadConfig(StorageConfig, env);
      }
      daily = await startDailySimulator({
        storage: StorageConfig.parse({ STORAGE_LOCAL_ROOT: mkdtempSync(join(tmpdir(), "scribe-retention-daily-")) }),
      });
      sys = await startSystem({
        label: `retention${driver}`,
        services: ["rooms", "meetings", "recordings", "notifier", "transcription", "gateway"],
        env: {
          ...env,
          PUBLIC_MODE: "true",
          PUBLIC_DATA_RETENTION_DAYS: "7",
          // The test runs retention itself, with its clock.
          RETENTION_RUN_AT: "off",
          STORAGE_PURGE_INTERVAL_MS: "100",
          DAILY_API_URL: daily.url,
          DAILY_API_KEY: daily.apiKey,
          DAILY_WEBHOOK_SECRET: daily.webhookSecret,
          MEETING_PROCESS_INTERVAL_SECONDS: "0",
        },
      });
      daily.setWebhookUrl(`${sys.baseUrl}/v1/daily/webhook`);
      db = postgres(sys.db.url, { max: 2, onnotice: () => {} });
      expire = transcriptionHooks(sys).expireTranscripts;

      const alice = sys.client("alice");
      const roomName = `public-${driver}`;
      await ok(alice.POST("/v1/rooms", { body: { name: roomName } }));
      const room = await eventually(async () => (await alice.GET("/v1/rooms/name/{room_name}", onRoomName(roomName))).data ?? null);

      const make = async (label: string, overrides: Partial<TranscriptState>): Promise<Case> => {
        const meeting = await eventually(async () => {
          const res = await sys
            .client(null)
            .POST("/v1/rooms/{room_name}/meeting", { ...onRoomName(roomName), body: { allow_duplicated: true } });
          return res.data ?? null;
        });
        // A participant's stay and their consent (a guest answers while in the call): both must go with the meeting.
        await daily.join(meeting.room_name, { userName: `guest-${label}` });
        expect(
          (
            await sys
              .client(null)
              .POST("/v1/meetings/{meeting_id}/consent", { params: { path: { meeting_id: meeting.id } }, body: { consent_given: true } })
          ).response.status,
        ).toBe(200);
        const recordingId = randomUUID();
        const trackKeys = [`${meeting.room_name}/${label}-cam-audio-1.webm`, `${meeting.room_name}/${label}-cam-video-1.webm`];
        for (const key of trackKeys) await bucket(DAILY).put(key, Buffer.alloc(512, 3));
        const available: RecordingAvailable = {
          recording_id: recordingId,
          meeting_id: meeting.id,
          room_id: room.id,
          room_name: roomName,
          room_owner_id: "alice",
          platform: "daily",
          kind: "multitrack",
          bucket: DAILY,
          tracks: trackKeys.map((key, i) => ({
            key,
            kind: i === 0 ? "audio" : "video",
            start_offset_seconds: 0,
            participant_id: `p-${label}`,
            participant_name: label,
            user_id: null,
            size: 512,
          })),
          file: null,
          recorded_at: new Date().toISOString(),
          duration_seconds: 60,
          store_video: true,
          participants: [],
        };
        await publish(sys.prefix, "recording.available", available, "scribe/meetings");
        // The transcription service makes the recording's transcript (owned by the room's owner); the
        // case's owner and age are arranged in its table, which is what retention decides on.
        const made = await eventually(
          async () => (await db<{ id: string }[]>`select id from transcription.transcript where recording_id = ${recordingId}`)[0] ?? null,
          {
            message: "transcript made for the recording",
          },
        );
        const transcript = transcriptState(made.id, {
          status: "ended",
          source_kind: "room",
          room_id: room.id,
          meeting_id: meeting.id,
          recording_id: recordingId,
          ...overrides,
        });
        await db`update transcription.transcript set user_id = ${transcript.user_id}, created_at = ${transcript.created_at} where id = ${made.id}`;
        await bucket(TRANSCRIPTS).put(transcriptKeys.mp3(transcript.id), Buffer.alloc(2048, 1));
        await bucket(TRANSCRIPTS).put(transcriptKeys.waveform(transcript.id), "[0,0.5,1]");
        return { transcript, meetingId: meeting.id, recordingId, trackKeys };
      };
      cases.oldAnonymous = await make("old", { user_id: null, created_at: new Date(start.getTime() - DAY).toISOString() });
      cases.newAnonymous = await make("new", { user_id: null, created_at: start.toISOString() });
      cases.oldOwned = await make("owned", { user_id: "alice", created_at: new Date(start.getTime() - DAY).toISOString() });

      await notifierCaughtUp(sys, "TRANSCRIPTS");
      // Every recording known and linked to its transcript, every stay recorded.
      await eventually(async () => (await db`select 1 from recordings.recording where transcript_id is not null`).length === 3, {
        message: "recordings linked",
      });
      await eventually(async () => (await db`select 1 from meetings.participant_session`).length === 3, { message: "stays recorded" });
    }, 120_000);
    afterAll(async () => {
      await db?.end();
      await sys?.stop();
      await daily?.close();
      await s3?.stop();
    });

    const keysOf = async (b: string, prefix: string) => {
      const out: string[] = [];
      for await (const o of bucket(b).list(prefix)) out.push(o.key);
      return out.sort();
    };
    const meetingRows = async (id: string) => ({
      meeting: (await db`select 1 from meetings.meeting where id = ${id}`).length,
      consent: (await db`select 1 from meetings.meeting_consent where meeting_id = ${id}`).length,
      stays: (await db`select 1 from meetings.participant_session where meeting_id = ${id}`).length,
    });
    const recordingRows = async (id: string) => ({
      recording: (await db`select 1 from recordings.recording where id = ${id}`).length,
      files: (await db`select 1 from recordings.recording_file where recording_id = ${id}`).length,
    });
    const expiredEvents = async () =>
      (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter((e) => e.type === "retention.transcript_expired");

    it("expires nothing before the limit: the clock decides", async () => {
      expect(await expire({ now: new Date(start.getTime() + 5 * DAY) })).toEqual([]);
      expect(await expiredEvents()).toEqual([]);
    });

    it("announces the old anonymous transcript once, and its meeting goes with consent and stays", async () => {
      const now = new Date(start.getTime() + 6.5 * DAY);
      expect(await expire({ now })).toEqual([cases.oldAnonymous.transcript.id]);
      // A second run (another replica, the next check) announces nothing again.
      expect(await expire({ now: new Date(now.getTime() + 3_600_000) })).toEqual([]);
      // The announcement leaves through the outbox relay: published shortly after the commit.
      const events = await eventually(async () => ((await expiredEvents()).length > 0 ? expiredEvents() : null), {
        message: "expiry announced",
      });
      expect(events.map((e) => e.data)).toEqual([
        {
          transcript_id: cases.oldAnonymous.transcript.id,
          meeting_id: cases.oldAnonymous.meetingId,
          recording_id: cases.oldAnonymous.recordingId,
          transcript_created_at: cases.oldAnonymous.transcript.created_at,
          retention_days: 7,
          expired_at: now.toISOString(),
        },
      ]);
      await eventually(async () => (await meetingRows(cases.oldAnonymous.meetingId)).meeting === 0, { message: "meeting deleted" });
      expect(await meetingRows(cases.oldAnonymous.meetingId)).toEqual({ meeting: 0, consent: 0, stays: 0 });
      const deleted = (await streamEvents(sys.prefix, "MEETINGS")).filter((e) => e.type === "meeting.deleted");
      expect(deleted.map((e) => e.data.id)).toEqual([cases.oldAnonymous.meetingId]);
    });

    it("once the transcript is destroyed, its recordings and every file are gone, in every bucket", async () => {
      const old = cases.oldAnonymous;
      expect(await db`select 1 from transcription.transcript where id = ${old.transcript.id}`).toHaveLength(0);
      const destroyed = await eventually(
        async () => {
          const events = (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter((e) => e.type === "transcript.destroyed");
          return events.length > 0 ? events : null;
        },
        { message: "destruction announced" },
      );
      expect(
        destroyed.map((e) => [(e.data as { transcript: { id: string } }).transcript.id, (e.data as { reason: string }).reason]),
      ).toEqual([[old.transcript.id, "retention"]]);
      await eventually(async () => (await recordingRows(old.recordingId)).recording === 0, {
        message: "recording rows deleted",
        timeoutMs: 20_000,
      });
      expect(await recordingRows(old.recordingId)).toEqual({ recording: 0, files: 0 });
      for (const key of old.trackKeys) expect(await bucket(DAILY).head(key)).toBeNull();
      expect(await keysOf(TRANSCRIPTS, transcriptKeys.prefix(old.transcript.id))).toEqual([]);
    });

    it("touches nothing else: the newer anonymous transcript and the owned one keep meeting, recordings and files", async () => {
      for (const c of [cases.newAnonymous, cases.oldOwned]) {
        expect(await meetingRows(c.meetingId)).toEqual({ meeting: 1, consent: 1, stays: 1 });
        expect(await recordingRows(c.recordingId)).toEqual({ recording: 1, files: 2 });
        for (const key of c.trackKeys) expect(await bucket(DAILY).head(key)).not.toBeNull();
        expect(await db`select 1 from transcription.transcript where id = ${c.transcript.id}`).toHaveLength(1);
        expect(await keysOf(TRANSCRIPTS, transcriptKeys.prefix(c.transcript.id))).toEqual(
          [transcriptKeys.waveform(c.transcript.id), transcriptKeys.mp3(c.transcript.id)].sort(),
        );
      }
      const meta = (await db`select deleted_at from recordings.recording_file where deleted_at is not null`).length;
      expect(meta).toBe(0);
    });
  });
}

retentionScenario("local");
retentionScenario("s3");
