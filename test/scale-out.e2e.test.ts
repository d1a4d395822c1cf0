// Scale-out, proven (issue 20): two replicas of every service (two `scribe up` processes behind a
// load balancer) on a three-node NATS cluster whose streams keep three copies, and PostgreSQL.
// Twenty uploads and two recorded meetings in rooms with webhooks are processed at once; mid-way
// the replica running a speech-to-text step is killed (one replica of every service), then the
// NATS node the surviving transcription replica is connected to, both with SIGKILL, and rooms keep
// being created and changed; then the NATS node starts again on its data while the work goes on.
// Every transcript still ends exactly once, each room transcript's webhook is delivered once, nothing
// is dead-lettered, the read model equals the write side, and the restarted node caught up: every
// stream's three copies current, its own copy holding what the leader holds.
// Each replica's log goes to a file, kept (and its folder printed) when the test fails.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { createScribeClient, ok, type ScribeClient } from "@scribe/client";
import { DLQ_STREAM } from "@scribe/contracts";
import { connectBus, connectDb, StorageConfig, type Bus, type Sql } from "@scribe/kit";
import { createTestDatabase, eventually, testPrefix, type TestDatabase } from "@scribe/kit/testing";
import { startTestNatsCluster, type TestNatsCluster } from "@scribe/kit/testing";
import { listDeliveries } from "@scribe/notifier/testing";
import {
  platformEnv,
  startDailySimulator,
  startWherebySimulator,
  synthesizeMeeting,
  type DailySimulator,
  type MeetingFixture,
  type MeetingScript,
  type WherebySimulator,
} from "@scribe/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { speechMp3, uploadWhole } from "./support/media";
import { roomWithMeetings } from "./support/platforms";
import { transcriptOfRoom, untilSettled } from "./support/recorded-meeting";
import { killReplica, startReplica, untilReady, type Replica } from "./support/service-replicas";
import { unusedPort } from "./support/dev-stack";
import { passwordModeToken, streamEvents, TEST_SECRET } from "./support/system";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy";
import { WebhookReceiver } from "./support/webhook-receiver";

const UPLOADS = 20;
const MEETINGS = 2;
const WEBHOOK_SECRET = "scale-out-webhook-secret";
/** Starting two processes of every service through tsx on a loaded 2-core machine. */
const READY_MS = 240_000;
/** Every transcript processed, the killed replica's steps taken over after the ack wait. */
const SETTLED_MS = 360_000;

/** Two speakers, two short turns each: the meeting's tracks are a few seconds long. */
const shortMeeting: MeetingScript = {
  name: "scale-out-short",
  speakers: [
    { id: "alice", name: "Alice", voice: "kal16" },
    { id: "bob", name: "Bob", voice: "rms" },
  ],
  gap: 0.4,
  leadIn: 0.5,
  turns: [
    { speaker: "alice", text: "Good morning. We review the launch plan." },
    { speaker: "bob", text: "The payment system has problems." },
    { speaker: "alice", text: "Then we move the launch to March." },
    { speaker: "bob", text: "I will fix the payment problems." },
  ],
};

let cluster: TestNatsCluster;
let db: TestDatabase;
let storageRoot: string;
let logDir: string;
let daily: DailySimulator;
let whereby: WherebySimulator;
let proxy: TcpProxy;
let replicas: Replica[] = [];
let bus: Bus;
/** The transcription service's schema: the write side and its workflow tables. */
let writes: Sql;
let reads: Sql;
let notifier: Sql;
let prefix: string;
let api: ScribeClient;
let passed = false;
const receiver = new WebhookReceiver(() => WEBHOOK_SECRET);

beforeAll(async () => {
  await receiver.up();
  cluster = await startTestNatsCluster();
  db = await createTestDatabase("scaleout");
  prefix = testPrefix("scaleout");
  storageRoot = await mkdtemp(join(tmpdir(), "scribe-scaleout-"));
  logDir = await mkdtemp(join(tmpdir(), "scribe-scaleout-logs-"));
  const storage = StorageConfig.parse({ STORAGE_LOCAL_ROOT: storageRoot });
  daily = await startDailySimulator({ storage });
  whereby = await startWherebySimulator({ storage });
  // The load balancer in front of the replicas' gateways is the public address.
  const ports = [await unusedPort(), await unusedPort()];
  proxy = await startTcpProxy(ports.map((port) => ({ host: "127.0.0.1", port })));
  const env: Record<string, string> = {
    ...platformEnv(daily, whereby),
    BASE_URL: proxy.url,
    DATABASE_URL: db.url,
    NATS_URL: cluster.url,
    NATS_PREFIX: prefix,
    NATS_STREAM_REPLICAS: "3",
    HOST: "127.0.0.1",
    AUTH_BACKEND: "password",
    SECRET_KEY: TEST_SECRET,
    STORAGE_LOCAL_ROOT: storageRoot,
    // The logs go to files, read when the test fails.
    LOG_LEVEL: process.env.SCALE_OUT_LOG_LEVEL ?? "info",
    OUTBOX_POLL_MS: "200",
    DATABASE_POOL_SIZE: "4",
    MEETING_PROCESS_INTERVAL_SECONDS: "0",
    PLATFORM_API_TIMEOUT_MS: "5000",
    ALLOW_PRIVATE_URLS: "true",
    NOTIFIER_DISPATCH_INTERVAL_MS: "200",
    UI_BASE_URL: "https://scribe.example.com",
  };
  // Two processes of every service; the first migrates while the second waits on its lock.
  replicas = await Promise.all(["a", "b"].map((name, i) => startReplica({ name, services: [], env, logDir, port: ports[i] })));
  await Promise.all(replicas.map((r) => untilReady(r, READY_MS)));
  daily.setWebhookUrl(`${proxy.url}/v1/daily/webhook`);
  whereby.setWebhookUrl(`${proxy.url}/v1/whereby`);
  api = createScribeClient({ baseUrl: proxy.url, token: () => passwordModeToken("alice") });
  bus = await connectBus({ url: cluster.url, prefix, name: "scale-out-test" });
  writes = connectDb(db.url, { schema: "transcription", max: 2 });
  reads = connectDb(db.url, { schema: "projection", max: 2 });
  notifier = connectDb(db.url, { schema: "notifier", max: 2 });
}, READY_MS + 60_000);

afterAll(async () => {
  if (passed) await rm(logDir, { recursive: true, force: true });
  else if (logDir) console.error(`scale-out replica logs kept in ${logDir}`);
  await Promise.all(replicas.map((r) => killReplica(r).catch(() => {})));
  await proxy?.close();
  await bus?.close();
  for (const s of [writes, reads, notifier]) await s?.end({ timeout: 5 });
  await daily?.close();
  await whereby?.close();
  await cluster?.stop();
  await db?.drop();
  await rm(storageRoot, { recursive: true, force: true });
  await receiver.down();
});

/** One upload: the transcript, then its audio as one chunk (retried while the recordings service does not know it yet). */
async function upload(i: number): Promise<string> {
  const t = await ok(api.POST("/v1/transcripts", { body: { name: `upload ${i}` } }));
  await ok(uploadWhole(api, t.id, speechMp3(`Upload number ${i} is a short recording for the scale out test.`), `upload-${i}.mp3`));
  return t.id;
}

/** A room with a webhook, a meeting in it, and its recording finished on the Daily simulator. */
async function recordedMeeting(i: number, fx: MeetingFixture): Promise<{ roomId: string; transcriptId: string }> {
  const room = await roomWithMeetings(api, {
    name: `scale-${i}-${randomUUID().slice(0, 6)}`,
    webhook_url: receiver.url,
    webhook_secret: WEBHOOK_SECRET,
  });
  const meeting = await ok(api.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: room.name } }, body: {} }));
  const rec = await daily.finishRecording({
    roomName: meeting.room_name,
    tracks: fx.truth.tracks.map((t) => ({ participantName: t.name, startOffsetSeconds: t.offset, audioFile: fx.trackPaths[t.speaker]! })),
  });
  expect(rec.webhook.status).toBe(200);
  return { roomId: room.id, transcriptId: await transcriptOfRoom(api, room.id) };
}

/**
 * What a client does with a 503 (a service briefly out of reach while its NATS connection fails
 * over) or a connection the dying gateway cut: send the same request again (creates carry an
 * Idempotency-Key, so nothing is made twice). Any other error fails.
 */
async function untilAvailable<T>(call: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const res = await call().catch(() => null);
    if (res && res.response.status !== 503) return ok(Promise.resolve(res));
    if (performance.now() > deadline) throw new Error(`still unavailable after 60 s (${res?.response.status ?? "connection cut"})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The meetings service knows the room (it learns of rooms from their events). */
const roomReachedMeetings = (name: string) =>
  eventually(
    async () => (await api.GET("/v1/rooms/{room_name}/meetings/active", { params: { path: { room_name: name } } })).response.status === 200,
    {
      timeoutMs: 60_000,
      message: `room ${name} reached the meetings service`,
    },
  );

/** The replica whose process runs a step of the speech-to-text queue now (worker ids are `<host>:<pid>:…`). */
async function replicaRunningSpeechToText(): Promise<Replica | null> {
  const rows = await writes<{ worker: string }[]>`
    select s.worker from workflow_steps s join workflow_runs r on r.id = s.run_id
    where s.status = 'running' and s.step in ('transcribe', 'tracks') and s.worker is not null`;
  const pids = new Set(rows.map((r) => Number(r.worker.split(":")[1])));
  return replicas.find((r) => pids.has(r.child.pid!)) ?? null;
}

/**
 * What keeps our streams from being whole again after `restarted` came back: a stream without its
 * three copies, a copy offline, not current or lagging, or the restarted node's own copy (its /jsz)
 * not holding what the leader holds. Empty: caught up.
 */
async function copiesBehind(restarted: string): Promise<string[]> {
  const streams = (await bus.jsm.streams.list().next()).filter((s) => s.config.name.includes(bus.stream("")));
  const jsz = (await (await fetch(`${cluster.node(restarted).monitorUrl}/jsz?streams=true`)).json()) as {
    account_details?: { stream_detail?: { name: string; state: { messages: number; last_seq: number } }[] }[];
  };
  const own = new Map((jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []).map((d) => [d.name, d.state]));
  const behind: string[] = [];
  for (const s of streams) {
    const name = s.config.name;
    const replicas = s.cluster?.replicas ?? [];
    const holders = new Set([s.cluster?.leader, ...replicas.map((r) => r.name)]);
    if (!holders.has(restarted) || holders.size !== 3) behind.push(`${name} is on ${[...holders].join(",")}`);
    for (const r of replicas)
      if (!r.current || r.offline || (r.lag ?? 0) > 0)
        behind.push(`${name} on ${r.name}: current ${r.current}, offline ${r.offline}, lag ${r.lag}`);
    const mine = own.get(name);
    if (mine?.last_seq !== s.state.last_seq || mine.messages !== s.state.messages)
      behind.push(`${name} on ${restarted}: ${JSON.stringify(mine)} of ${s.state.messages} messages up to ${s.state.last_seq}`);
  }
  return behind;
}

describe("two replicas of every service on a three-node NATS cluster", () => {
  it(
    "processes every transcript exactly once through the loss of a NATS node and of one replica of each service, and the node rejoins",
    async () => {
      // Every stream the services made keeps three copies.
      const streams = await bus.jsm.streams.list().next();
      const ours = streams.filter((s) => s.config.name.includes(bus.stream("")));
      expect(ours.map((s) => s.config.name)).toContain(bus.stream("WORKFLOW"));
      for (const s of ours) expect(s.config.num_replicas, s.config.name).toBe(3);

      const fx = await synthesizeMeeting(shortMeeting);
      // Twenty uploads and two recorded meetings at once.
      const meetingIds = Promise.all(Array.from({ length: MEETINGS }, (_, i) => recordedMeeting(i, fx)));
      const uploadIds = Promise.all(Array.from({ length: UPLOADS }, (_, i) => upload(i)));
      const [uploads, meetings] = [await uploadIds, await meetingIds];
      const all = [...uploads, ...meetings.map((m) => m.transcriptId)];
      expect(new Set(all).size).toBe(UPLOADS + MEETINGS);

      // Mid-way: speech-to-text is running somewhere, and not everything has ended.
      const victim = await eventually(replicaRunningSpeechToText, {
        timeoutMs: 120_000,
        intervalMs: 100,
        message: "a speech-to-text step running",
      });
      const [ended] = await writes<{ n: number }[]>`select count(*)::int as n from transcript where status = 'ended'`;
      expect(ended!.n).toBeLessThan(all.length);
      // The replica running it dies; then the NATS node the surviving transcription replica is connected to.
      await killReplica(victim);
      const [natsNode] = await cluster.nodesServing("scribe-transcription");
      expect(natsNode).toBeDefined();
      await cluster.kill(natsNode!);

      // Rooms keep changing while the system recovers: a new room, and a meeting's room renamed.
      const late = await untilAvailable(() =>
        api.POST("/v1/rooms", { body: { name: `late-${randomUUID().slice(0, 6)}` }, headers: { "idempotency-key": randomUUID() } }),
      );
      const renamed = `renamed-${randomUUID().slice(0, 6)}`;
      await untilAvailable(() =>
        api.PATCH("/v1/rooms/{room_id}", { params: { path: { room_id: meetings[0]!.roomId } }, body: { name: renamed } }),
      );

      // The lost NATS node starts again on its data while transcripts are still being processed.
      await cluster.restart(natsNode!);

      // Every transcript ends (none in error).
      for (const id of all) {
        const t = await untilSettled(api, id, SETTLED_MS);
        expect(t.status, JSON.stringify(t)).toBe("ended");
      }

      // Exactly once: one transcript.completed per transcript, one succeeded run each.
      const completed = (await streamEvents(prefix, "TRANSCRIPTS", cluster.url)).filter((e) => e.type === "transcript.completed");
      const completions = new Map<string, number>();
      for (const e of completed) {
        const id = (e.data.transcript as { id: string }).id;
        completions.set(id, (completions.get(id) ?? 0) + 1);
      }
      expect(Object.fromEntries(completions)).toEqual(Object.fromEntries(all.map((id) => [id, 1])));
      const runs = await writes<{ subject: string; status: string }[]>`select subject, status from workflow_runs order by subject`;
      expect(
        runs
          .filter((r) => r.status === "succeeded")
          .map((r) => r.subject)
          .sort(),
      ).toEqual([...all].sort());

      // One webhook delivery per room transcript, delivered, signed; a retry after the kill keeps its delivery id.
      for (const { transcriptId: id } of meetings) {
        const deliveries = await eventually(
          async () => {
            const rows = await listDeliveries(notifier, { transcriptId: id, channel: "webhook", limit: 10 });
            return rows.length > 0 && rows.every((d) => d.status === "delivered") ? rows : null;
          },
          { timeoutMs: 60_000, message: `the webhook of ${id} delivered` },
        );
        expect(deliveries).toHaveLength(1);
        const received = receiver.received.filter((w) => w.body?.transcript?.id === id);
        expect(received.length).toBeGreaterThan(0);
        expect(new Set(received.map((w) => w.headers["x-webhook-delivery-id"])).size).toBe(1);
        expect(received.every((w) => w.signatureValid)).toBe(true);
      }

      // No dead letters.
      const dlq = await bus.jsm.streams.info(bus.stream(DLQ_STREAM.name)).catch(() => null);
      expect(dlq?.state.messages ?? 0).toBe(0);

      // The read model equals the write side, field by field.
      const columns = [
        "id",
        "version",
        "name",
        "status",
        "error",
        "title",
        "short_summary",
        "long_summary",
        "duration",
        "room_id",
        "meeting_id",
        "recording_id",
        "source_kind",
        "share_mode",
        "user_id",
        "webvtt",
      ];
      const written =
        await writes`select ${writes(columns)}, participants, jsonb_array_length(topics) as topics from transcript order by id`;
      const readModel = () =>
        reads`select ${reads(columns)}, participants, (select count(*)::int from topic where topic.transcript_id = transcript.id) as topics
          from transcript order by id`;
      await eventually(async () => JSON.stringify(await readModel()) === JSON.stringify(written), { timeoutMs: 60_000 }).catch(() => {});
      const read = await readModel();
      expect(read).toEqual(written);

      // The rooms changed after the kills: the new one reached the meetings service, the renamed one is renamed.
      await roomReachedMeetings(late.name);
      const room = await ok(api.GET("/v1/rooms/{room_id}", { params: { path: { room_id: meetings[0]!.roomId } } }));
      expect(room.name).toBe(renamed);

      // The restarted node caught up: every stream's three copies are current, its own as the leader's.
      await eventually(
        async () => {
          const behind = await copiesBehind(natsNode!);
          if (behind.length) throw new Error(behind.join("; "));
          return true;
        },
        { timeoutMs: 60_000, intervalMs: 500, message: `NATS node ${natsNode} caught up` },
      );
      passed = true;
    },
    READY_MS + SETTLED_MS,
  );
});
