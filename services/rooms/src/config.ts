// Environment of the rooms service (reference names: DEFAULT_VIDEO_PLATFORM, PUBLIC_MODE, AUTH_BACKEND).
import { SharedSettings } from "@scribe/kit";
import { Platform } from "@scribe/contracts";
import { z } from "zod";

export const RoomsConfig = z.object({
  DEFAULT_VIDEO_PLATFORM: Platform.default("daily").describe("video platform of new rooms that do not choose one"),
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
  SECRET_KEY: SharedSettings.SECRET_KEY,
});
export type RoomsConfig = z.infer<typeof RoomsConfig>;
