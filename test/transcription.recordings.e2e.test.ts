// recording.ready → the transcription service: a platform recording gets its transcript (owner,
// room, meeting, participants) and one run, however often the recording is announced; a run that
// fails for good leaves status error with the reason, and POST /process retries it.
import { randomUUID } from "node:crypto";
import { ok, type ScribeClient } from "@scribe/client";
import type { RecordingReady } from "@scribe/contracts";
import { connectBus, connectDb, type Sql } from "@scribe/kit";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { WORKFLOW_STREAM, queueDurable } from "@scribe/workflow";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publish } from "./support/media";
import { startSystem, streamEvents, type TestSystem } from "./support/system";

let sys: TestSystem;
let alice: ScribeClient;
let sql: Sql;

beforeAll(async () => {
  sys = await startSystem({ label: "trec", services: ["projection", "transcription", "gateway"], env: { PIPELINE_STT_CONCURRENCY: "3" } });
  alice = sys.client("alice");
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await sys?.stop();
});

interface Row {
  id: string;
  status: string;
  error: string | null;
  current_run_id: string | null;
}
const transcriptsOf = (recordingId: string) =>
  sql<Row[]>`select id, status, error, current_run_id from transcript where recording_id = ${recordingId}`;
const runsOf = async (id: string) => (await sql<{ id: string }[]>`select id from workflow_runs where subject = ${id}`).map((r) => r.id);

/** A platform A recording whose track is not in storage: its run fails at the first step. */
function platformRecording(): RecordingReady {
  return {
    recording_id: `rec-${randomUUID()}`,
    kind: "multitrack",
    source: "platform",
    bucket: "daily-recordings",
    tracks: [
      { key: "missing/track-1.webm", start_offset_seconds: 0, participant_id: "p-1", participant_name: "Ann", user_id: null, size: null },
    ],
    file: null,
    transcript_id: null,
    meeting_id: randomUUID(),
    room_id: randomUUID(),
    room_name: "standup",
    owner_user_id: "alice",
    platform: "daily",
    recorded_at: new Date().toISOString(),
    duration_seconds: 30,
    participants: [{ participant_id: "p-1", name: "Ann", user_id: null }],
  };
}

describe("recording.ready from a video platform", () => {
  const rec = platformRecording();
  let id: string;
  beforeAll(async () => {
    await publish(sys.prefix, "recording.ready", rec);
    id = (await eventually(async () => (await transcriptsOf(rec.recording_id))[0], { message: "transcript created" })).id;
  });

  it("creates the room owner's transcript, linked to the room, meeting and recording", async () => {
    const t = await eventually(
      async () => (await alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id } } })).data,
    );
    expect(t).toMatchObject({
      user_id: "alice",
      source_kind: "room",
      share_mode: "semi-private",
      room_id: rec.room_id,
      meeting_id: rec.meeting_id,
      name: "",
    });
    const lifecycle = await eventually(async () => {
      const found = (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter(
        (e) => e.type === "transcript.lifecycle.changed" && e.data.transcript_id === id,
      );
      return found.length ? found : null;
    });
    expect(lifecycle.map((e) => e.data.action)).toEqual(["created"]);
  });

  it("starts one run, and none more when the recording is announced again", async () => {
    await eventually(async () => (await runsOf(id)).length === 1);
    await publish(sys.prefix, "recording.ready", rec);
    // A later, unrelated event is handled after the duplicate (one consumer, in order).
    const other = platformRecording();
    await publish(sys.prefix, "recording.ready", other);
    await eventually(async () => (await transcriptsOf(other.recording_id)).length === 1);
    expect(await transcriptsOf(rec.recording_id)).toHaveLength(1);
    expect(await runsOf(id)).toHaveLength(1);
  });

  it("marks the transcript error with the reason when the run fails for good; process retries it", async () => {
    const failed = await eventually(async () => (await transcriptsOf(rec.recording_id)).find((t) => t.status === "error"), {
      timeoutMs: 60_000,
      message: "the run failed",
    });
    expect(failed.error).toEqual(expect.any(String));
    const path = { params: { path: { transcript_id: id } } };
    // The failure was seen on the write side; the API's read model follows its event.
    await eventually(async () => (await ok(alice.GET("/v1/transcripts/{transcript_id}", path))).status === "error", {
      message: "the API shows the error",
    });
    await ok(alice.POST("/v1/transcripts/{transcript_id}/process", path));
    const [again] = await transcriptsOf(rec.recording_id);
    expect(again!.current_run_id).not.toBe(failed.current_run_id);
    expect(await runsOf(id)).toHaveLength(2);
  }, 90_000);
});

describe("configuration", () => {
  it("sets the cluster-wide speech-to-text limit from PIPELINE_STT_CONCURRENCY", async () => {
    const bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "trec-limits" });
    try {
      const info = await bus.jsm.consumers.info(bus.stream(WORKFLOW_STREAM), queueDurable("transcription", "transcription-stt"));
      expect(info.config.max_ack_pending).toBe(3);
    } finally {
      await bus.close();
    }
  });
});
