// Issue 7: the transcription service is killed (SIGKILL, with its ffmpeg/pocketsphinx children, as
// a container dies) while a multitrack run is transcribing tracks, then started again. The run
// resumes where it was — the interrupted track steps run again once their messages' ack wait
// expires — and ends with one completed transcript, exactly one transcript.completed event and one
// webhook delivery to the room's receiver.
import type { ChildProcess } from "node:child_process";
import { ok, type ScribeClient } from "@scribe/client";
import { connectDb, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { threeSpeakerSync, synthesizeMeeting } from "@scribe/simulators";
import { consumerCaughtUp } from "./support/media";
import { deliveriesOf, notifierCaughtUp, notifierDb } from "./support/notifier";
import { startPlatformSystem, type PlatformSystem } from "./support/platforms";
import { recordMeeting, transcriptOfRoom, untilSettled } from "./support/recorded-meeting";
import { onRoom, onTranscript } from "./support/api";
import { streamEvents } from "./support/system";
import { WebhookReceiver } from "./support/webhook-receiver";
import { killServiceProcess, startServiceProcess } from "./support/service-process";

/** The service's steps are redelivered after its ack wait (WORKFLOW_ACK_WAIT_MS, 5 s); then offline STT runs again. */
const RESUME_MS = 420_000;

let sys: PlatformSystem;
let alice: ScribeClient;
let sql: Sql;
let notifier: Sql;
let service: ChildProcess | null = null;
let webhookSecret: string | null = null;
const receiver = new WebhookReceiver(() => webhookSecret);

/** The transcription service alone in its own process group, so its tool processes die with it. */
const startTranscription = (): ChildProcess => startServiceProcess("transcription", sys.env);
const killTranscription = (): Promise<void> => killServiceProcess(service);

beforeAll(async () => {
  await receiver.up();
  sys = await startPlatformSystem({
    label: "mtkill",
    services: ["rooms", "meetings", "recordings", "projection", "notifier", "gateway"],
    env: { ALLOW_PRIVATE_URLS: "true" },
  });
  alice = sys.client("alice");
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
  notifier = notifierDb(sys);
}, 120_000);
afterAll(async () => {
  await killTranscription().catch(() => {});
  await sql?.end({ timeout: 5 });
  await notifier?.end({ timeout: 5 });
  await sys?.stop();
  await receiver.down();
});

interface StepRow {
  step: string;
  item_index: number | null;
  status: string;
  attempts: number;
}
const stepsOf = (runId: string) =>
  sql<StepRow[]>`select step, item_index, status, attempts from workflow_steps where run_id = ${runId} and item_count is null order by id`;
const runsOf = (id: string) => sql<{ id: string; status: string }[]>`select id, status from workflow_runs where subject = ${id}`;

describe("the transcription service killed during a multitrack run", () => {
  it(
    "resumes after a restart and completes the transcript once",
    async () => {
      const fx = await synthesizeMeeting(threeSpeakerSync);
      service = startTranscription();
      // Its consumer takes only recordings announced after it exists: record once it is there.
      await eventually(() => consumerCaughtUp(sys.prefix, "RECORDINGS", "transcription.recordings").catch(() => false), {
        timeoutMs: 60_000,
        message: "the transcription service consuming recordings",
      });
      const rec = await recordMeeting(sys, alice, "killed", fx, { webhook_url: receiver.url });
      webhookSecret = (await ok(alice.GET("/v1/rooms/{room_id}", onRoom(rec.roomId)))).webhook_secret;
      const id = await transcriptOfRoom(alice, rec.roomId);

      // Kill once a per-track speech-to-text step is running.
      const runId = await eventually(async () => (await runsOf(id))[0]?.id, { timeoutMs: 60_000, message: "the run started" });
      await eventually(async () => (await stepsOf(runId)).some((s) => s.step === "tracks" && s.status === "running"), {
        timeoutMs: 120_000,
        intervalMs: 100,
        message: "a track step running",
      });
      await killTranscription();
      // What was running when the process died was interrupted (read after the kill: nothing can finish it now).
      const atKill = await stepsOf(runId);
      const interrupted = atKill.filter((s) => s.status === "running");
      expect(interrupted.map((s) => s.step)).toContain("tracks");
      expect(atKill.some((s) => s.step === "complete" && s.status === "succeeded")).toBe(false);

      service = startTranscription();
      const t = await untilSettled(alice, id, RESUME_MS);
      expect(t.status, JSON.stringify(t)).toBe("ended");

      // One run, succeeded, every step done; the interrupted steps ran again.
      expect(await runsOf(id)).toEqual([{ id: runId, status: "succeeded" }]);
      const after = await stepsOf(runId);
      for (const s of after) expect(s.status, `${s.step}[${s.item_index}]`).toBe("succeeded");
      for (const s of interrupted) {
        const now = after.find((x) => x.step === s.step && x.item_index === s.item_index)!;
        expect(now.attempts, `${s.step}[${s.item_index}]`).toBeGreaterThan(s.attempts);
      }

      // Exactly one completion event, for this run; the transcript has its participants and words.
      const completed = await eventually(
        async () => {
          const evs = (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter(
            (e) => e.type === "transcript.completed" && (e.data.transcript as { id: string }).id === id,
          );
          return evs.length > 0 ? evs : null;
        },
        { message: "transcript.completed published" },
      );
      expect(completed.map((e) => e.data.run_id)).toEqual([runId]);
      expect((t.participants as { name: string }[]).map((p) => p.name)).toEqual(fx.truth.tracks.map((x) => x.name));
      const topics = await ok(alice.GET("/v1/transcripts/{transcript_id}/topics/with-words", onTranscript(id)));
      expect(topics.flatMap((x) => x.words).length).toBeGreaterThan(fx.truth.words.length * 0.6);

      // The room's webhook: one delivery for the transcript, received once with a valid signature.
      await notifierCaughtUp(sys, "TRANSCRIPTS");
      const deliveries = await deliveriesOf(notifier, id);
      expect(deliveries).toHaveLength(1);
      await eventually(() => receiver.received.length > 0, { timeoutMs: 30_000, message: "the webhook arrived" });
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.signatureValid).toBe(true);
      expect(receiver.received[0]!.body.transcript.id).toBe(id);
    },
    RESUME_MS + 240_000,
  );
});
