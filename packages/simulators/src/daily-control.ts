// The Daily simulator's control API: what a test or `scribe demo` asks of "the platform" that the
// real one would get from people in a call. Same server and bearer key as the simulated REST API:
//
//   POST /_control/rooms/{room_name}/meeting   body {script: MeetingScript, video?: boolean}
//     Holds a meeting in a room the simulator knows (the meeting's `room_name`): synthesises each
//     speaker's track from the script (flite, espeak-ng fallback), lets every speaker join and leave
//     (signed participant.joined / participant.left webhooks; the last one out ends the meeting),
//     stores one WebM/Opus track per speaker in the recordings bucket at its start offset, and sends
//     recording.ready-to-download. Answers when all of it was delivered:
//     200 {room_name, recording_id, duration_seconds, words, participants: [{name, participant_id,
//          start_offset_seconds, track_key, size}], webhooks: {participant_joined: [status…],
//          participant_left: [status…], meeting_ended: status|null, recording_ready: status}}
//     400 a bad script (the field named in `info`), 404 unknown room, 409 no webhook URL yet,
//     502 Scribe refused a webhook (its status and answer in `info`).
//   GET /_control/rooms   the rooms the simulator knows, with who is present.
import { z } from "zod";
import type { SimHandler, SimResponse } from "./common";
import type { DailySimulator } from "./daily";
import { synthesizeMeeting, type FliteVoice, type MeetingScript } from "./speech/synth";

const VOICES = ["kal16", "rms", "awb", "slt", "kal", "awb_time"] as const satisfies readonly FliteVoice[];

export const MeetingScriptInput = z
  .object({
    name: z.string().min(1).max(100).default("control-api-meeting"),
    speakers: z
      .array(
        z.object({
          id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, "letters, digits, '_' and '-' (1 to 40)"),
          name: z.string().min(1).max(100),
          voice: z.enum(VOICES),
          stretch: z.number().min(0.5).max(2).optional(),
        }),
      )
      .min(1)
      .max(8),
    turns: z
      .array(z.object({ speaker: z.string(), text: z.string().min(1).max(1000), gapBefore: z.number().min(-5).max(30).optional() }))
      .min(1)
      .max(200),
    gap: z.number().min(0).max(30).optional(),
    leadIn: z.number().min(0).max(30).optional(),
  })
  .superRefine((s, ctx) => {
    const ids = new Set(s.speakers.map((p) => p.id));
    if (ids.size !== s.speakers.length) ctx.addIssue({ code: "custom", path: ["speakers"], message: "speaker ids must be unique" });
    s.turns.forEach((t, i) => {
      if (!ids.has(t.speaker))
        ctx.addIssue({ code: "custom", path: ["turns", i, "speaker"], message: `no speaker with id ${JSON.stringify(t.speaker)}` });
    });
  });

const HoldRequest = z.object({ script: MeetingScriptInput, video: z.boolean().default(false) });

export interface HeldMeeting {
  room_name: string;
  recording_id: string;
  duration_seconds: number;
  /** Spoken words in the script. */
  words: number;
  participants: { name: string; participant_id: string; start_offset_seconds: number; track_key: string; size: number }[];
  webhooks: { participant_joined: number[]; participant_left: number[]; meeting_ended: number | null; recording_ready: number };
}

/** A webhook Scribe did not take: the meeting cannot go on as the platform would have it. */
export class WebhookRefused extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`Scribe answered ${status} to ${what}: ${body.slice(0, 300)}`);
  }
}

function accepted<T extends { status: number; body: string }>(what: string, d: T): T {
  if (d.status < 200 || d.status > 299) throw new WebhookRefused(what, d.status, d.body);
  return d;
}

/** Hold a meeting from `script` in the simulator's room `roomName` (see the file header). */
export async function holdMeeting(
  sim: DailySimulator,
  roomName: string,
  script: MeetingScript,
  opts: { video?: boolean } = {},
): Promise<HeldMeeting> {
  const fixture = await synthesizeMeeting(script);
  const tracks = fixture.truth.tracks;
  // Everyone who speaks is in the call, in the order they first speak; then they leave the same way.
  const present: { name: string; id: string }[] = [];
  const joined: number[] = [];
  for (const t of tracks) {
    const { participant, webhook } = await sim.join(roomName, { userName: t.name });
    joined.push(accepted(`participant.joined of ${t.name}`, webhook).status);
    present.push({ name: t.name, id: participant.id });
  }
  const left: number[] = [];
  let ended: number | null = null;
  for (const p of present) {
    const out = await sim.leave(roomName, p.id);
    left.push(accepted(`participant.left of ${p.name}`, out.webhook).status);
    if (out.ended) ended = accepted("meeting.ended", out.ended).status;
  }
  const rec = await sim.finishRecording({
    roomName,
    tracks: tracks.map((t) => ({ participantName: t.name, audioFile: fixture.trackPaths[t.speaker]!, startOffsetSeconds: t.offset })),
    video: opts.video ?? false,
  });
  accepted("recording.ready-to-download", rec.webhook);
  const audio = rec.tracks.filter((t) => t.type === "audio");
  return {
    room_name: roomName,
    recording_id: rec.recordingId,
    duration_seconds: fixture.truth.duration,
    words: fixture.truth.words.length,
    participants: audio.map((t, i) => ({
      name: tracks[i]!.name,
      participant_id: t.participantId,
      start_offset_seconds: t.startOffsetSeconds,
      track_key: t.key,
      size: t.size,
    })),
    webhooks: { participant_joined: joined, participant_left: left, meeting_ended: ended, recording_ready: rec.webhook.status },
  };
}

const invalid = (info: string): SimResponse => ({ status: 400, body: { error: "invalid-request-error", info } });

/** The `/_control/…` routes of a Daily simulator; `hasWebhookUrl` says whether webhooks can go out. */
export function dailyControlRoutes(sim: () => DailySimulator, hasWebhookUrl: () => boolean): SimHandler {
  return async (req) => {
    const parts = req.path.split("/").filter(Boolean).map(decodeURIComponent);
    if (req.method === "GET" && parts.length === 2 && parts[1] === "rooms") {
      const rooms = [...sim().rooms.values()].map((r) => ({
        name: r.name,
        present: r.participants.filter((p) => p.leftAt === null).map((p) => p.userName),
      }));
      return { status: 200, body: { rooms } };
    }
    if (req.method === "POST" && parts.length === 4 && parts[1] === "rooms" && parts[3] === "meeting") {
      const roomName = parts[2]!;
      const parsed = HoldRequest.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return invalid(`${issue.path.join(".") || "(body)"}: ${issue.message}`);
      }
      if (!sim().rooms.has(roomName)) return { status: 404, body: { error: "not-found", info: `room ${roomName} not found` } };
      if (!hasWebhookUrl())
        return { status: 409, body: { error: "invalid-request-error", info: "the simulator has no webhook URL to send the meeting to" } };
      try {
        return { status: 200, body: await holdMeeting(sim(), roomName, parsed.data.script, { video: parsed.data.video }) };
      } catch (e) {
        if (e instanceof WebhookRefused) return { status: 502, body: { error: "webhook-refused", info: e.message } };
        throw e;
      }
    }
    return { status: 404, body: { error: "not-found", info: `no control route ${req.method} ${req.path}` } };
  };
}
