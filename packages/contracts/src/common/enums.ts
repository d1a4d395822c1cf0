// Enumerations of the wire contract (api.md §1.1), shared by API schemas and events.
import { z } from "@hono/zod-openapi";

export const PLATFORMS = ["whereby", "daily", "livekit"] as const;
/** Platforms Scribe implements; "livekit" is accepted by validation but out of scope (api.md). */
export const Platform = z.enum(PLATFORMS);
export type Platform = z.infer<typeof Platform>;

export const RoomMode = z.enum(["normal", "group"]);
export const RecordingType = z.enum(["none", "local", "cloud"]);
export const RecordingTrigger = z.enum(["none", "prompt", "automatic", "automatic-2nd-participant"]);
export const SourceKind = z.enum(["room", "live", "file"]).openapi("SourceKind");
export const SyncStatus = z.enum(["success", "unchanged", "error", "skipped"]).openapi("SyncStatus");
export const TranscriptStatus = z.enum(["idle", "uploaded", "recording", "processing", "error", "ended"]);
export const ShareMode = z.enum(["public", "semi-private", "private"]);
