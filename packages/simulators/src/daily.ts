// Platform A simulator: the subset of Daily's REST API the meetings service calls (rooms,
// meeting-tokens, presence, recordings) plus Daily's signed webhooks (participant joined/left,
// meeting ended, recording ready with one WebM/Opus track per participant in the bucket), and a
// control API that holds a whole meeting from a script (daily-control.ts).
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { bucketName, openStorage, type ObjectStorage, type StorageConfig } from "@scribe/kit";
import { encodeInto, postWebhook, startJsonServer, type Delivery, type LoggedCall, type SimResponse } from "./common";
import { dailyControlRoutes } from "./daily-control";

export interface DailySimulatorOptions {
  storage: StorageConfig;
  /** Bucket the recordings go to (default: DAILYCO_STORAGE_AWS_BUCKET_NAME of `storage`). */
  bucket?: string;
  apiKey?: string;
  /** Fixed port on 127.0.0.1 (`scribe dev`); default any free one. */
  port?: number;
  /** Base64 webhook secret (Daily's `hmac`); generated when omitted. */
  webhookSecret?: string;
  /** The gateway's `POST /v1/daily/webhook` URL (settable later). */
  webhookUrl?: string;
  /** Send `meeting.ended` when the last participant leaves (Daily does, after up to 20 s). Default true. */
  endMeetingWhenEmpty?: boolean;
}

export interface SimParticipant {
  /** Daily's participant (session) id. */
  id: string;
  userId: string;
  userName: string;
  joinedAt: number;
  leftAt: number | null;
}

export interface SimDailyRoom {
  id: string;
  name: string;
  url: string;
  privacy: string;
  properties: Record<string, unknown>;
  /** Everyone who was ever in the room (presence = those with leftAt null). */
  participants: SimParticipant[];
  /** Daily's meeting (session) id of the current or last session. */
  mtgSessionId: string | null;
  sessionStartedAt: number | null;
  recordings: { id: string; type: string; instanceId: string; active: boolean }[];
}

export interface TrackSpec {
  participantName: string;
  userId?: string;
  /** An audio file to encode as the track; default: a 2 s tone. */
  audioFile?: string;
  /** When this participant's track starts, in seconds after the recording's start. */
  startOffsetSeconds: number;
}

export interface FinishedRecording {
  recordingId: string;
  folder: string;
  tracks: { key: string; type: "audio" | "video"; participantId: string; startOffsetSeconds: number; size: number }[];
  webhook: Delivery;
}

export interface DailySimulator {
  /** The simulated REST API's base (`…/v1`). */
  url: string;
  /** Base of the control API (`…/_control`, same bearer key; see daily-control.ts). */
  controlUrl: string;
  apiKey: string;
  webhookSecret: string;
  bucket: string;
  storage: ObjectStorage;
  rooms: Map<string, SimDailyRoom>;
  /** Properties of every meeting token created. */
  tokens: Record<string, unknown>[];
  calls: LoggedCall[];
  setWebhookUrl(url: string): void;
  join(roomName: string, who: { userName: string; userId?: string }): Promise<{ participant: SimParticipant; webhook: Delivery }>;
  leave(roomName: string, participantId: string): Promise<{ webhook: Delivery; ended: Delivery | null }>;
  /**
   * Encode the tracks into the bucket with Daily's key format and send `recording.ready-to-download`.
   * A track's participant is the one of that name who joined; a name nobody joined with joins and
   * leaves first (signed webhooks), so the meeting records every recorded participant.
   */
  finishRecording(opts: { roomName: string; tracks: TrackSpec[]; video?: boolean; startedAt?: Date }): Promise<FinishedRecording>;
  /** Sign and send any webhook body (tests of bad signatures and replays override the parts). */
  sendWebhook(
    body: unknown,
    opts?: { timestamp?: string; signature?: string; rawBody?: string },
  ): Promise<Delivery & { rawBody: string; timestamp: string; signature: string }>;
  /** Remove a room as Daily does at its `exp`. */
  expireRoom(roomName: string): void;
  /**
   * The next room creation waits for `release()`; `reached` resolves when it arrives (tests of what
   * the caller holds while the platform answers). Released with a status, it answers that error.
   */
  holdNextRoomCreation(): { reached: Promise<void>; release(answer?: { status: number }): void };
  close(): Promise<void>;
}

const SIM_DOMAIN = "scribe-sim";
const notFound = (what: string): SimResponse => ({ status: 404, body: { error: "not-found", info: `${what} not found` } });

export function signDaily(secretBase64: string, timestamp: string, rawBody: string): string {
  return createHmac("sha256", Buffer.from(secretBase64, "base64")).update(`${timestamp}.${rawBody}`).digest("base64");
}

export async function startDailySimulator(opts: DailySimulatorOptions): Promise<DailySimulator> {
  const apiKey = opts.apiKey ?? "sim-daily-key";
  const webhookSecret = opts.webhookSecret ?? randomBytes(32).toString("base64");
  const bucket = opts.bucket ?? bucketName(opts.storage, "daily");
  const storage = openStorage(opts.storage, bucket);
  const rooms = new Map<string, SimDailyRoom>();
  const tokens: Record<string, unknown>[] = [];
  const calls: LoggedCall[] = [];
  let webhookUrl = opts.webhookUrl ?? null;
  const now = () => Date.now();
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const present = (room: SimDailyRoom) => room.participants.filter((p) => p.leftAt === null);
  let roomCreationHold: { arrived(): void; released: Promise<{ status: number } | undefined> } | null = null;
  // Set once the simulator object exists (the control routes drive it like a test would).
  let self: DailySimulator | null = null;
  const control = dailyControlRoutes(
    () => self!,
    () => webhookUrl !== null,
  );

  const roomJson = (r: SimDailyRoom) => ({
    id: r.id,
    name: r.name,
    api_created: true,
    privacy: r.privacy,
    url: r.url,
    created_at: new Date().toISOString(),
    config: r.properties,
  });

  const server = await startJsonServer({
    apiKey,
    calls,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    handle: async (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const parts = req.path.split("/").filter(Boolean).map(decodeURIComponent);
      if (parts[0] === "_control") return control(req);
      if (req.method === "POST" && req.path === "/rooms") {
        const hold = roomCreationHold;
        roomCreationHold = null;
        if (hold) {
          hold.arrived();
          const answer = await hold.released;
          if (answer) return { status: answer.status, body: { error: "server-error", info: "held room creation failed" } };
        }
        const name = typeof body.name === "string" ? body.name : randomBytes(10).toString("hex");
        if (rooms.has(name)) return { status: 400, body: { error: "invalid-request-error", info: `a room named ${name} already exists` } };
        const room: SimDailyRoom = {
          id: randomUUID(),
          name,
          url: `https://${SIM_DOMAIN}.daily.co/${name}`,
          privacy: typeof body.privacy === "string" ? body.privacy : "public",
          properties: (body.properties as Record<string, unknown>) ?? {},
          participants: [],
          mtgSessionId: null,
          sessionStartedAt: null,
          recordings: [],
        };
        rooms.set(name, room);
        return { status: 200, body: roomJson(room) };
      }
      if (parts[0] === "rooms" && parts[1]) {
        const room = rooms.get(parts[1]);
        if (!room) return notFound(`room ${parts[1]}`);
        if (parts.length === 2 && req.method === "GET") return { status: 200, body: roomJson(room) };
        if (parts.length === 2 && req.method === "DELETE") {
          rooms.delete(room.name);
          return { status: 200, body: { deleted: true, name: room.name } };
        }
        if (parts[2] === "presence" && req.method === "GET") {
          const data = present(room).map((p) => ({
            room: room.name,
            id: p.id,
            userId: p.userId,
            userName: p.userName,
            joinTime: new Date(p.joinedAt).toISOString(),
            duration: seconds(now() - p.joinedAt),
          }));
          return { status: 200, body: { total_count: data.length, data } };
        }
        if (parts[2] === "recordings" && parts[3] === "start" && req.method === "POST") {
          if (present(room).length === 0)
            return { status: 400, body: { error: "invalid-request-error", info: "room does not seem to be hosting a call currently" } };
          const type = String(body.type ?? "cloud");
          const instanceId = String(body.instanceId ?? randomUUID());
          if (room.recordings.some((r) => r.active && r.instanceId === instanceId)) {
            return { status: 400, body: { error: "invalid-request-error", info: `${instanceId} has an active stream` } };
          }
          const rec = { id: randomUUID(), type, instanceId, active: true };
          room.recordings.push(rec);
          return { status: 200, body: { recordingId: rec.id, instanceId } };
        }
      }
      if (req.method === "POST" && req.path === "/meeting-tokens") {
        const props = (body.properties as Record<string, unknown>) ?? {};
        if (typeof props.room_name === "string" && !rooms.has(props.room_name)) return notFound(`room ${props.room_name}`);
        tokens.push(props);
        return { status: 200, body: { token: `${Buffer.from(JSON.stringify(props)).toString("base64url")}.sim` } };
      }
      return { status: 404, body: { error: "not-found", info: `no route ${req.method} ${req.path}` } };
    },
  });

  const sendWebhook: DailySimulator["sendWebhook"] = async (body, o = {}) => {
    const rawBody = o.rawBody ?? JSON.stringify(body);
    const timestamp = o.timestamp ?? String(seconds(now()));
    const signature = o.signature ?? signDaily(webhookSecret, timestamp, rawBody);
    const delivery = await postWebhook(webhookUrl, rawBody, { "x-webhook-signature": signature, "x-webhook-timestamp": timestamp });
    return { ...delivery, rawBody, timestamp, signature };
  };
  const event = (type: string, payload: Record<string, unknown>) => ({
    version: "1.0.0",
    type,
    id: `${type}-${randomUUID()}`,
    payload,
    event_ts: now() / 1000,
  });
  const participantPayload = (room: SimDailyRoom, p: SimParticipant) => ({
    room: room.name,
    user_id: p.userId,
    user_name: p.userName,
    session_id: p.id,
    joined_at: seconds(p.joinedAt),
    owner: false,
    will_eject_at: 0,
  });
  const roomNamed = (name: string) => {
    const room = rooms.get(name);
    if (!room) throw new Error(`Daily simulator has no room ${name}`);
    return room;
  };

  self = {
    url: server.url,
    controlUrl: server.url.replace(/\/v1$/, "/_control"),
    apiKey,
    webhookSecret,
    bucket,
    storage,
    rooms,
    tokens,
    calls,
    setWebhookUrl: (url) => void (webhookUrl = url),
    sendWebhook,
    async join(roomName, who) {
      const room = roomNamed(roomName);
      if (present(room).length === 0) {
        room.mtgSessionId = randomUUID();
        room.sessionStartedAt = now();
      }
      const id = randomUUID();
      // Without a meeting token Daily's user_id is the participant's session id.
      const participant: SimParticipant = { id, userId: who.userId ?? id, userName: who.userName, joinedAt: now(), leftAt: null };
      room.participants.push(participant);
      const webhook = (await sendWebhook(event("participant.joined", participantPayload(room, participant)))) as Delivery;
      return { participant, webhook };
    },
    async leave(roomName, participantId) {
      const room = roomNamed(roomName);
      const p = room.participants.find((x) => x.id === participantId && x.leftAt === null);
      if (!p) throw new Error(`participant ${participantId} is not in ${roomName}`);
      p.leftAt = now();
      const webhook = await sendWebhook(
        event("participant.left", { ...participantPayload(room, p), duration: seconds(p.leftAt - p.joinedAt) }),
      );
      let ended: Delivery | null = null;
      if (present(room).length === 0 && opts.endMeetingWhenEmpty !== false) {
        for (const r of room.recordings) r.active = false;
        ended = await sendWebhook(
          event("meeting.ended", {
            start_ts: seconds(room.sessionStartedAt ?? p.joinedAt),
            end_ts: seconds(now()),
            meeting_id: room.mtgSessionId,
            room: room.name,
          }),
        );
      }
      return { webhook, ended };
    },
    async finishRecording({ roomName, tracks, video = false, startedAt }) {
      const room = roomNamed(roomName);
      const recordingId = randomUUID();
      const recStart = (startedAt ?? new Date()).getTime();
      const folder = `${SIM_DOMAIN}/${room.name}`;
      const written: FinishedRecording["tracks"] = [];
      let duration = 0;
      for (const t of tracks) {
        // The track belongs to the participant of that name (and user) if they were in the room;
        // anyone else was there too as far as Daily is concerned: they join and leave first, so the
        // meeting knows their name as it would from a real call.
        let who = room.participants.find((p) => p.userName === t.participantName && (t.userId === undefined || p.userId === t.userId));
        if (!who) {
          const id = randomUUID();
          who = {
            id,
            userId: t.userId ?? id,
            userName: t.participantName,
            joinedAt: recStart + Math.round(t.startOffsetSeconds * 1000),
            leftAt: null,
          };
          room.participants.push(who);
          await sendWebhook(event("participant.joined", participantPayload(room, who)));
          who.leftAt = now();
          await sendWebhook(event("participant.left", { ...participantPayload(room, who), duration: seconds(who.leftAt - who.joinedAt) }));
        }
        const participantId = who.id;
        const trackStart = recStart + Math.round(t.startOffsetSeconds * 1000);
        const audioKey = `${folder}/${recStart}-${participantId}-cam-audio-${trackStart}`;
        const audio = await encodeInto(storage, audioKey, t.audioFile ?? null, "webm-opus");
        written.push({ key: audioKey, type: "audio", participantId, startOffsetSeconds: t.startOffsetSeconds, size: audio.size });
        duration = Math.max(duration, t.startOffsetSeconds + audio.duration);
        if (video) {
          const videoKey = `${folder}/${recStart}-${participantId}-cam-video-${trackStart}`;
          const v = await encodeInto(storage, videoKey, null, "webm-vp8");
          written.push({ key: videoKey, type: "video", participantId, startOffsetSeconds: t.startOffsetSeconds, size: v.size });
        }
      }
      const webhook = await sendWebhook(
        event("recording.ready-to-download", {
          type: "raw-tracks",
          recording_id: recordingId,
          room_name: room.name,
          start_ts: seconds(recStart),
          status: "finished",
          max_participants: tracks.length,
          duration: Math.ceil(duration),
          s3_key: folder,
          tracks: written.map((w) => ({ type: w.type, s3Key: w.key, size: w.size })),
        }),
      );
      return { recordingId, folder, tracks: written, webhook };
    },
    expireRoom: (roomName) => void rooms.delete(roomName),
    holdNextRoomCreation() {
      let arrived = () => {};
      let release: (answer?: { status: number }) => void = () => {};
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<{ status: number } | undefined>((resolve) => (release = resolve));
      roomCreationHold = { arrived, released };
      return { reached, release };
    },
    close: () => server.close(),
  };
  return self;
}
