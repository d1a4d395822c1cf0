// The Daily simulator's control API holds a meeting from a script: signed participant and meeting
// webhooks in the platform's order, one synthesised WebM/Opus track per speaker in the bucket at
// its start offset, then recording.ready-to-download naming those tracks; bad requests get 4xx.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StorageConfig } from "@scribe/kit";
import { probe } from "@scribe/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signDaily, startDailySimulator, type DailySimulator } from "../src/daily";
import { synthesizeMeeting, type MeetingScript } from "../src/speech/synth";

const script: MeetingScript = {
  name: "control-api-check",
  speakers: [
    { id: "ann", name: "Ann", voice: "kal16" },
    { id: "ben", name: "Ben", voice: "rms" },
  ],
  leadIn: 0.3,
  turns: [
    { speaker: "ann", text: "Good morning Ben." },
    { speaker: "ben", text: "Good morning. I will send the report by Friday.", gapBefore: 1.5 },
  ],
};

interface Received {
  type: string;
  payload: Record<string, unknown>;
  signatureValid: boolean;
}

let root: string;
let sim: DailySimulator;
let receiver: Server;
let received: Received[] = [];
/** Status the receiver answers (Scribe refusing a webhook). */
let answer = 200;

async function control(path: string, init: RequestInit = {}) {
  const res = await fetch(`${sim.controlUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${sim.apiKey}`, "content-type": "application/json" },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function createRoom(name: string): Promise<void> {
  const res = await fetch(`${sim.url}/rooms`, {
    method: "POST",
    headers: { authorization: `Bearer ${sim.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(200);
}
const hold = (room: string, body: unknown) => control(`/rooms/${room}/meeting`, { method: "POST", body: JSON.stringify(body) });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "scribe-sim-control-"));
  sim = await startDailySimulator({ storage: StorageConfig.parse({ STORAGE_LOCAL_ROOT: root }) });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const body = JSON.parse(raw) as { type: string; payload: Record<string, unknown> };
      const expected = signDaily(sim.webhookSecret, String(req.headers["x-webhook-timestamp"]), raw);
      received.push({ type: body.type, payload: body.payload, signatureValid: req.headers["x-webhook-signature"] === expected });
      res.writeHead(answer, { "content-type": "application/json" }).end(answer === 200 ? "{}" : '{"detail":"Invalid signature"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await sim?.close();
  receiver?.close();
  await rm(root, { recursive: true, force: true });
});

describe("Daily simulator control API", () => {
  it("refuses to hold a meeting before it knows where to send webhooks", async () => {
    await createRoom("no-url-yet");
    const res = await hold("no-url-yet", { script });
    expect(res.status).toBe(409);
    expect(res.body.info).toMatch(/webhook URL/);
  });

  it("holds a meeting: joins and leaves, the meeting ends, the tracks are stored at their offsets, the recording is announced", async () => {
    sim.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/daily/webhook`);
    received = [];
    await createRoom("standup-1");
    const res = await hold("standup-1", { script });
    expect(res.status).toBe(200);
    const held = res.body as {
      recording_id: string;
      words: number;
      participants: { name: string; participant_id: string; start_offset_seconds: number; track_key: string; size: number }[];
      webhooks: unknown;
    };

    expect(received.map((r) => r.type)).toEqual([
      "participant.joined",
      "participant.joined",
      "participant.left",
      "participant.left",
      "meeting.ended",
      "recording.ready-to-download",
    ]);
    expect(received.every((r) => r.signatureValid)).toBe(true);
    expect(received.slice(0, 2).map((r) => r.payload.user_name)).toEqual(["Ann", "Ben"]);
    expect(held.webhooks).toEqual({
      participant_joined: [200, 200],
      participant_left: [200, 200],
      meeting_ended: 200,
      recording_ready: 200,
    });
    expect(held.words).toBe(12);

    // One track per speaker, Ben's starting after Ann's turn and the 1.5 s pause.
    const fixture = await synthesizeMeeting(script);
    expect(held.participants.map((p) => p.name)).toEqual(["Ann", "Ben"]);
    const [ann, ben] = held.participants;
    expect(ann!.start_offset_seconds).toBeCloseTo(fixture.truth.tracks[0]!.offset, 3);
    expect(ben!.start_offset_seconds).toBeCloseTo(fixture.truth.tracks[1]!.offset, 3);
    expect(ben!.start_offset_seconds).toBeGreaterThan(ann!.start_offset_seconds + 1.5);
    for (const [i, p] of held.participants.entries()) {
      expect(await sim.storage.head(p.track_key)).toMatchObject({ size: p.size });
      const media = await probe(join(root, sim.bucket, p.track_key));
      expect(media.hasAudio).toBe(true);
      expect(media.duration!).toBeCloseTo(fixture.truth.tracks[i]!.duration, 0);
    }

    // The recording webhook names exactly those tracks, keyed as Daily keys them.
    const ready = received.at(-1)!.payload;
    expect(ready).toMatchObject({
      type: "raw-tracks",
      recording_id: held.recording_id,
      room_name: "standup-1",
      status: "finished",
      max_participants: 2,
    });
    expect((ready.tracks as { s3Key: string; type: string }[]).map((t) => [t.type, t.s3Key])).toEqual(
      held.participants.map((p) => ["audio", p.track_key]),
    );
    expect(ann!.track_key).toMatch(new RegExp(`^scribe-sim/standup-1/\\d+-${ann!.participant_id}-cam-audio-\\d+$`));
    // The participants who joined are the ones whose tracks were recorded.
    expect(received[0]!.payload.session_id).toBe(ann!.participant_id);
  });

  it("answers 400 naming the field of a bad script, 404 for a room it does not know", async () => {
    await createRoom("standup-2");
    const badSpeaker = await hold("standup-2", { script: { ...script, turns: [{ speaker: "zoe", text: "Hello." }] } });
    expect(badSpeaker).toMatchObject({
      status: 400,
      body: { info: expect.stringMatching(/^script\.turns\.0\.speaker: no speaker with id "zoe"/) },
    });
    const badVoice = await hold("standup-2", { script: { ...script, speakers: [{ id: "ann", name: "Ann", voice: "robot" }] } });
    expect(badVoice).toMatchObject({ status: 400, body: { info: expect.stringMatching(/^script\.speakers\.0\.voice:/) } });
    const noScript = await hold("standup-2", {});
    expect(noScript).toMatchObject({ status: 400, body: { info: expect.stringMatching(/^script:/) } });
    expect((await hold("no-such-room", { script })).status).toBe(404);
  });

  it("answers 502 with Scribe's answer when a webhook is refused, and lists the rooms with who is present", async () => {
    await createRoom("standup-3");
    answer = 401;
    try {
      const res = await hold("standup-3", { script });
      expect(res.status).toBe(502);
      expect(res.body.info).toMatch(/Scribe answered 401 to participant\.joined of Ann: .*Invalid signature/);
    } finally {
      answer = 200;
    }
    const rooms = await control("/rooms");
    expect(rooms.status).toBe(200);
    expect(rooms.body.rooms).toEqual(
      expect.arrayContaining([
        { name: "standup-3", present: ["Ann"] },
        { name: "standup-1", present: [] },
      ]),
    );
  });

  it("needs the simulator's API key", async () => {
    const res = await fetch(`${sim.controlUrl}/rooms`);
    expect(res.status).toBe(401);
  });
});
