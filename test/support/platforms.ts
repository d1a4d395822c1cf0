// A test system with both video-platform simulators wired in: the meetings service calls their
// APIs, they send their signed webhooks to the gateway, and recordings land in a temporary folder.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StorageConfig, type StorageConfig as StorageSettings } from "@scribe/kit";
import { ok, type Schemas, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import {
  startDailySimulator,
  type DailySimulator,
  type DailySimulatorOptions,
  platformEnv,
  startWherebySimulator,
  type WherebySimulator,
  type WherebySimulatorOptions,
} from "@scribe/simulators";
import { startSystem, streamEvents, type TestSystem } from "./system";

export interface PlatformSystem extends TestSystem {
  daily: DailySimulator;
  whereby: WherebySimulator;
  storage: StorageSettings;
  /** The meetings service's processing round (the periodic job is off in tests). */
  processMeetings(opts?: { now?: Date }): Promise<{ processed: string[]; deactivated: string[]; skipped: string[]; failed: string[] }>;
}

export async function startPlatformSystem(opts: {
  label: string;
  /** Services to run in the test process (default: all). */
  services?: string[];
  env?: Record<string, string>;
  daily?: Partial<DailySimulatorOptions>;
  whereby?: Partial<WherebySimulatorOptions>;
}): Promise<PlatformSystem> {
  const root = await mkdtemp(join(tmpdir(), `scribe-${opts.label}-`));
  const storage = StorageConfig.parse({ STORAGE_LOCAL_ROOT: root });
  const daily = await startDailySimulator({ storage, ...opts.daily });
  const whereby = await startWherebySimulator({ storage, ...opts.whereby });
  const sys = await startSystem({
    label: opts.label,
    services: opts.services,
    env: {
      ...platformEnv(daily, whereby),
      STORAGE_LOCAL_ROOT: root,
      MEETING_PROCESS_INTERVAL_SECONDS: "0",
      // Keep failing platform calls short in tests.
      PLATFORM_API_TIMEOUT_MS: "5000",
      ...opts.env,
    },
  });
  daily.setWebhookUrl(`${sys.baseUrl}/v1/daily/webhook`);
  whereby.setWebhookUrl(`${sys.baseUrl}/v1/whereby`);
  const meetings = sys.process.services.find((s) => s.name === "meetings");
  if (!meetings) throw new Error("the meetings service is not running");
  return {
    ...sys,
    daily,
    whereby,
    storage,
    processMeetings: meetings.exports.processMeetings as PlatformSystem["processMeetings"],
    async stop() {
      await sys.stop();
      await daily.close();
      await whereby.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Create (or reuse) a meeting in the room called `room`. */
export const createMeeting = (api: ScribeClient, room: string, body: Schemas["CreateRoomMeeting"] = {}) =>
  ok(api.POST("/v1/rooms/{room_name}/meeting", { params: { path: { room_name: room } }, body }));

/** One meeting of the room called `room`, as `api` sees it. */
export const readMeeting = (api: ScribeClient, room: string, meetingId: string) =>
  ok(api.GET("/v1/rooms/{room_name}/meetings/{meeting_id}", { params: { path: { room_name: room, meeting_id: meetingId } } }));

/** Create a room and wait until the meetings service has it (room events arrive asynchronously). */
export async function roomWithMeetings(api: ScribeClient, body: Schemas["CreateRoom"]): Promise<{ id: string; name: string }> {
  const room = await ok(api.POST("/v1/rooms", { body }));
  const activeMeetings = { params: { path: { room_name: room.name } } };
  await eventually(async () => (await api.GET("/v1/rooms/{room_name}/meetings/active", activeMeetings)).response.status === 200, {
    message: `room ${room.name} reached the meetings service`,
  });
  return room;
}

/** Every event of one meeting on the MEETINGS stream, in order. */
export async function meetingEvents(sys: TestSystem, meetingId: string) {
  return (await streamEvents(sys.prefix, "MEETINGS")).filter((e) => e.subject === meetingId);
}

/** The meeting's events once one of type `type` has arrived. */
export function meetingEventsUntil(sys: TestSystem, meetingId: string, type: string) {
  return eventually(
    async () => {
      const evs = await meetingEvents(sys, meetingId);
      return evs.some((e) => e.type === type) ? evs : null;
    },
    { message: `${type} for meeting ${meetingId}` },
  );
}

/** A meeting two people joined and left, whose session ended and whose recording arrived. */
export const RECORDED_MEETING_EVENTS = [
  "meeting.created",
  "meeting.participant.joined",
  "meeting.participant.joined",
  "meeting.participant.left",
  "meeting.participant.left",
  "meeting.deactivated",
  "recording.available",
];
