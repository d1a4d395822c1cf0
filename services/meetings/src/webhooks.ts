// Incoming platform webhooks (api.md §2.17): the gateway hands over the raw body and headers; the
// platform adapter verifies and parses; the effect and its events are written in one transaction
// together with the delivery record that defends against replays.
import { makeEvent, meetingsOps, type MeetingState } from "@scribe/contracts";
import { NotFound, Unauthorized, emit, type Clock, type Db, type Logger, type RpcServer, type Sql } from "@scribe/kit";
import { SOURCE, changed, closeOpenStays, deactivateMeeting, participantJoined, participantLeft, refreshClientCount } from "./changes";
import { matchMeetingByTime, recordingAvailableFor } from "./domain/recordings";
import type { Platforms } from "./platforms";
import type { MeetingLookup, PlatformEvent, VideoPlatform } from "./platforms/types";
import { meetingById, meetingsByPlatformRoomName, recordDelivery, staysOfMeeting, updateMeeting } from "./store";

export function registerWebhooks(rpc: RpcServer, sql: Sql, platforms: Platforms, clock: Clock): void {
  const receive = async (platform: VideoPlatform, req: { body_base64: string; headers: Record<string, string> }, log: Logger) => {
    const now = clock();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const parsed = platform.parseWebhook(Buffer.from(req.body_base64, "base64"), headers, now);
    if (!parsed.event) {
      log.info(
        { platform: platform.name, deliveryId: parsed.deliveryId, note: parsed.note },
        "platform webhook acknowledged without effect",
      );
      return { status: "ok" as const };
    }
    const event = parsed.event;
    await sql.begin(async (tx) => {
      const delivery = await recordDelivery(tx, platform.name, parsed.deliveryId, parsed.signedAt, now);
      if (delivery === "replay") throw Unauthorized("Invalid webhook signature");
      if (delivery === "redelivery") {
        log.info({ platform: platform.name, deliveryId: parsed.deliveryId }, "platform webhook delivered again; already applied");
        return;
      }
      await applyPlatformEvent(tx, platform, event, now, log);
    });
    return { status: "ok" as const };
  };
  rpc.handle(meetingsOps.dailyWebhook, (req, ctx) => receive(platforms.daily, req, ctx.log));
  rpc.handle(meetingsOps.wherebyWebhook, (req, ctx) => receive(platforms.whereby, req, ctx.log));
}

/** The meeting an event is about, locked for the change (null when unknown). */
async function findMeeting(tx: Db, lookup: MeetingLookup): Promise<MeetingState | null> {
  let id: string | null;
  if ("meetingId" in lookup) {
    id = lookup.meetingId;
  } else {
    const candidates = await meetingsByPlatformRoomName(tx, lookup.platformRoomName);
    id = (lookup.near ? matchMeetingByTime(candidates, lookup.near) : candidates[0])?.id ?? null;
  }
  return id === null ? null : meetingById(tx, id, { forUpdate: true });
}

export async function applyPlatformEvent(tx: Db, platform: VideoPlatform, event: PlatformEvent, now: Date, log: Logger): Promise<void> {
  const meeting = await findMeeting(tx, event.meeting);
  if (!meeting) {
    if (platform.unknownMeeting === "not_found") throw NotFound("Meeting not found");
    log.warn({ platform: platform.name, lookup: event.meeting, type: event.type }, "platform webhook for an unknown meeting; acknowledged");
    return;
  }
  switch (event.type) {
    case "participant_joined":
    case "participant_left": {
      if (event.sessionId !== null) {
        const p = { sessionId: event.sessionId, userId: event.userId, userName: event.userName, joinedAt: event.joinedAt };
        if (event.type === "participant_joined") await participantJoined(tx, meeting, p, event.at);
        else await participantLeft(tx, meeting, p, event.at);
      }
      await refreshClientCount(tx, meeting, event.numClients, now);
      return;
    }
    case "session_ended": {
      await closeOpenStays(tx, meeting, event.at);
      const counted = await refreshClientCount(tx, meeting, 0, now);
      if (counted.is_active) await deactivateMeeting(tx, counted, "session_ended", now);
      return;
    }
    case "recording_ready": {
      const { recording } = event;
      let current = meeting;
      if (recording.kind === "composed_video") {
        // The composed video is kept only for rooms that store video (§5.3), set once.
        if (!meeting.store_video) {
          log.info(
            { meetingId: meeting.id, recordingId: recording.recordingId },
            "composed video of a meeting without store_video; ignored",
          );
          return;
        }
        if (meeting.daily_composed_video_s3_key === null && recording.file) {
          current = changed(
            meeting,
            {
              daily_composed_video_s3_key: recording.file.key,
              daily_composed_video_duration: recording.durationSeconds === null ? null : Math.round(recording.durationSeconds),
            },
            now,
          );
          await updateMeeting(tx, current);
          await emit(tx, makeEvent("meeting.updated", current, { source: SOURCE, time: now }));
        }
      }
      const stays = await staysOfMeeting(tx, meeting.id);
      const data = recordingAvailableFor({
        recording,
        meeting: current,
        bucket: event.bucket,
        participants: stays.map((s) => ({ sessionId: s.session_id, name: s.user_name, userId: s.user_id })),
      });
      await emit(tx, makeEvent("recording.available", data, { source: SOURCE, time: now }));
      return;
    }
  }
}
