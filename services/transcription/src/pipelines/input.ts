// The run input as the workflow runner parses it (at start and whenever a worker loads a step): the
// port's PipelineInput, validated, so a malformed dispatch is refused when the run is started.
import { RecordingReady } from "@scribe/contracts";
import { z } from "zod";
import type { PipelineInput } from "./port";

const shape = RecordingReady.shape;

export const PipelineInputSchema = z.object({
  transcript_id: z.string().min(1),
  kind: shape.kind,
  bucket: z.string().min(1),
  tracks: shape.tracks,
  file: shape.file,
  participants: shape.participants,
  source_language: z.string().min(1).default("en"),
  target_language: z.string().min(1).default("en"),
  meeting_id: z.string().nullable().default(null),
  room_id: z.string().nullable().default(null),
  recording_id: z.string().nullable().default(null),
}) satisfies z.ZodType<PipelineInput, unknown>;

export type Track = PipelineInput["tracks"][number];
