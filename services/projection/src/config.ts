// Environment of the projection service (reference name: PUBLIC_MODE).
import { SharedSettings, envInt } from "@scribe/kit";
import { z } from "zod";

export const ProjectionConfig = z.object({
  PUBLIC_MODE: SharedSettings.PUBLIC_MODE,
  AUTH_BACKEND: SharedSettings.AUTH_BACKEND,
  PROJECTION_LAG_POLL_MS: envInt(5000, 100).describe(
    "how often the projection measures how far it is behind its streams (metrics scribe_projection_lag_seconds, scribe_projection_pending_events)",
  ),
  TRANSCRIPT_CACHE_MB: envInt(64, 0, 65_536).describe(
    "rendered transcripts (GET /v1/transcripts/{id}, …/topics/with-words) kept per replica, by version, so an unchanged transcript is not rendered again; 0 keeps none",
  ),
});
export type ProjectionConfig = z.infer<typeof ProjectionConfig>;
