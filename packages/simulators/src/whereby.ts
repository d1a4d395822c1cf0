// Platform B simulator: the subset of Whereby's REST API the meetings service calls (meetings,
// insights room sessions) plus Whereby's signed webhooks (room.client.joined/left, room.session.*,
// recording.finished with one file in the bucket).
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { bucketName, openStorage, type ObjectStorage, type StorageConfig } from "@scribe/kit";
import { encodeInto, postWebhook, startJsonServer, type Delivery, type LoggedCall } from "./common";

export interface WherebySimulatorOptions {
  storage: StorageConfig;
  bucket?: string;
  apiKey?: string;
  /** Fixed port on 127.0.0.1 (`scribe dev`); default any free one. */
  port?: number;
  webhookSecret?: string;
  /** The gateway's `POST /v1/whereby` URL (settable later). */
  webhookUrl?: string;
  /** Send `room.session.ended` when the last participant leaves. Default true. */
  endSessionWhenEmpty?: boolean;
  /** The first meeting id handed out (tests replay a platform whose ids repeat); default: unique. */
  firstMeetingId?: number;
}

export interface SimWherebyMeeting {
  meetingId: string;
  roomName: string;
  roomUrl: string;
  hostRoomUrl: string;
  startDate: string;
  endDate: string;
  request: Record<string, unknown>;
  sessions: { roomSessionId: string; startedAt: string; endedAt: string | null }[];
  participants: { participantId: string; displayName: string; externalId: string | null; leftAt: string | null }[];
}

export interface WherebySimulator {
  url: string;
  apiKey: string;
  webhookSecret: string;
  bucket: string;
  storage: ObjectStorage;
  meetings: Map<string, SimWherebyMeeting>;
  calls: LoggedCall[];
  setWebhookUrl(url: string): void;
  join(meetingId: string, who: { displayName: string; externalId?: string }): Promise<{ participantId: string; webhook: Delivery }>;
  leave(meetingId: string, participantId: string): Promise<{ webhook: Delivery; ended: Delivery | null }>;
  /** Store one recording file (AAC in MP4) and send `recording.finished`. */
  finishRecording(opts: {
    meetingId: string;
    audioFile?: string;
  }): Promise<{ recordingId: string; key: string; size: number; webhook: Delivery }>;
  sendWebhook(
    type: string,
    data: Record<string, unknown>,
    opts?: { t?: string; signature?: string; id?: string },
  ): Promise<Delivery & { rawBody: string }>;
  close(): Promise<void>;
}

/** Whereby's body: compact JSON with non-ASCII escaped (what its signature is computed over). */
export function wherebyBody(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function signWhereby(secret: string, t: string, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

export async function startWherebySimulator(opts: WherebySimulatorOptions): Promise<WherebySimulator> {
  const apiKey = opts.apiKey ?? "sim-whereby-key";
  const webhookSecret = opts.webhookSecret ?? randomBytes(24).toString("hex");
  const bucket = opts.bucket ?? bucketName(opts.storage, "whereby");
  const storage = openStorage(opts.storage, bucket);
  const meetings = new Map<string, SimWherebyMeeting>();
  const calls: LoggedCall[] = [];
  let webhookUrl = opts.webhookUrl ?? null;
  // Numeric like Whereby's, and unique across restarts: a fresh simulator starts above every id an
  // earlier one handed out (unless it made more than a thousand meetings a millisecond).
  let nextId = opts.firstMeetingId ?? Date.now() * 1000;

  const server = await startJsonServer({
    apiKey,
    calls,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    handle: (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (req.method === "POST" && req.path === "/meetings") {
        const meetingId = String(nextId++);
        const name = `${typeof body.roomNamePrefix === "string" ? body.roomNamePrefix : ""}${randomUUID()}`;
        const roomUrl = `https://scribe-sim.whereby.com/${name}`;
        const m: SimWherebyMeeting = {
          meetingId,
          roomName: `/${name}`,
          roomUrl,
          hostRoomUrl: `${roomUrl}?roomKey=${randomBytes(8).toString("hex")}`,
          startDate: new Date().toISOString(),
          endDate: typeof body.endDate === "string" ? body.endDate : new Date(Date.now() + 3600_000).toISOString(),
          request: body,
          sessions: [],
          participants: [],
        };
        meetings.set(meetingId, m);
        const { meetingId: id, roomName, roomUrl: url, hostRoomUrl, startDate, endDate } = m;
        return { status: 201, body: { meetingId: id, roomName, roomUrl: url, hostRoomUrl, startDate, endDate } };
      }
      if (req.method === "GET" && req.path === "/insights/room-sessions") {
        const m = [...meetings.values()].find((x) => x.roomName === req.query.get("roomName"));
        if (!m) return { status: 404, body: { error: "Room not found" } };
        return { status: 200, body: { results: m.sessions, cursor: null } };
      }
      const match = /^\/meetings\/([^/]+)$/.exec(req.path);
      const m = match ? meetings.get(decodeURIComponent(match[1]!)) : undefined;
      if (m && req.method === "GET")
        return {
          status: 200,
          body: { meetingId: m.meetingId, roomName: m.roomName, roomUrl: m.roomUrl, startDate: m.startDate, endDate: m.endDate },
        };
      if (m && req.method === "DELETE") {
        meetings.delete(m.meetingId);
        return { status: 204 };
      }
      return { status: 404, body: { error: `no route ${req.method} ${req.path}` } };
    },
  });

  const sendWebhook: WherebySimulator["sendWebhook"] = async (type, data, o = {}) => {
    const rawBody = wherebyBody({ apiVersion: "1.0", id: o.id ?? randomUUID(), createdAt: new Date().toISOString(), type, data });
    const t = o.t ?? String(Math.floor(Date.now() / 1000));
    const signature = o.signature ?? signWhereby(webhookSecret, t, rawBody);
    return { ...(await postWebhook(webhookUrl, rawBody, { "whereby-signature": `t=${t},v1=${signature}` })), rawBody };
  };
  const meetingOf = (id: string) => {
    const m = meetings.get(id);
    if (!m) throw new Error(`Whereby simulator has no meeting ${id}`);
    return m;
  };
  const openSession = (m: SimWherebyMeeting) => m.sessions.find((s) => s.endedAt === null) ?? null;
  const present = (m: SimWherebyMeeting) => m.participants.filter((p) => p.leftAt === null);

  return {
    url: server.url,
    apiKey,
    webhookSecret,
    bucket,
    storage,
    meetings,
    calls,
    setWebhookUrl: (url) => void (webhookUrl = url),
    sendWebhook,
    async join(meetingId, who) {
      const m = meetingOf(meetingId);
      let session = openSession(m);
      if (!session) {
        session = { roomSessionId: randomUUID(), startedAt: new Date().toISOString(), endedAt: null };
        m.sessions.push(session);
        // Acknowledged by Scribe without effect; sent as Whereby would.
        await sendWebhook("room.session.started", { meetingId, roomName: m.roomName, roomSessionId: session.roomSessionId });
      }
      const participantId = randomUUID();
      m.participants.push({ participantId, displayName: who.displayName, externalId: who.externalId ?? null, leftAt: null });
      const webhook = await sendWebhook("room.client.joined", {
        meetingId,
        roomName: m.roomName,
        roomSessionId: session.roomSessionId,
        participantId,
        displayName: who.displayName,
        externalId: who.externalId ?? null,
        metadata: null,
        roleName: "visitor",
        numClients: present(m).length,
      });
      return { participantId, webhook };
    },
    async leave(meetingId, participantId) {
      const m = meetingOf(meetingId);
      const p = m.participants.find((x) => x.participantId === participantId && x.leftAt === null);
      if (!p) throw new Error(`participant ${participantId} is not in meeting ${meetingId}`);
      p.leftAt = new Date().toISOString();
      const session = openSession(m);
      const webhook = await sendWebhook("room.client.left", {
        meetingId,
        roomName: m.roomName,
        roomSessionId: session?.roomSessionId ?? null,
        participantId,
        displayName: p.displayName,
        externalId: p.externalId,
        metadata: null,
        roleName: "visitor",
        numClients: present(m).length,
      });
      let ended: Delivery | null = null;
      if (present(m).length === 0 && session && opts.endSessionWhenEmpty !== false) {
        session.endedAt = new Date().toISOString();
        ended = await sendWebhook("room.session.ended", {
          meetingId,
          roomName: m.roomName,
          roomSessionId: session.roomSessionId,
          endedAt: session.endedAt,
        });
      }
      return { webhook, ended };
    },
    async finishRecording({ meetingId, audioFile }) {
      const m = meetingOf(meetingId);
      const started = new Date(m.sessions[0]?.startedAt ?? Date.now());
      // The reference's file naming: <room name without "/">-<ISO timestamp>.mp4
      const key = `${m.roomName.replace(/^\//, "")}-${started.toISOString().replace(/\.\d{3}Z$/, "Z")}.mp4`;
      const { size, duration } = await encodeInto(storage, key, audioFile ?? null, "mp4-aac");
      const recordingId = randomUUID();
      const webhook = await sendWebhook("recording.finished", {
        meetingId,
        roomName: m.roomName,
        roomSessionId: m.sessions[0]?.roomSessionId ?? null,
        recordingId,
        key,
        size,
        startedAt: started.toISOString(),
        endedAt: new Date(started.getTime() + duration * 1000).toISOString(),
      });
      return { recordingId, key, size, webhook };
    },
    close: () => server.close(),
  };
}
