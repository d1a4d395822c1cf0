// Transcript mutations (api.md §2.9 create, §2.10 update/delete/restore/destroy/process, §2.12
// participants, §2.13 speakers), decided by the transcription service. Each route waits (bounded)
// for the read model to hold the version the change produced, so a read right after sees it.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import {
  CreateParticipant,
  CreateTranscript,
  DeletionStatus,
  GetTranscriptWithParticipants,
  Participant,
  ProcessStatus,
  SpeakerAssignment,
  SpeakerAssignmentStatus,
  SpeakerMerge,
  UpdateParticipant,
  TranscriptRuns,
  UpdateTranscript,
  projectionOps,
  transcriptWithParticipantsOf,
  transcriptionOps,
  type TranscriptState,
} from "@scribe/contracts";
import { call, requireUser, requireUserUnlessPublic, type AppContext, type AppEnv } from "../http/context";
import { IdempotencyKeyHeaders, idempotent } from "../http/idempotency";
import { body, json, validationError } from "./responses";
import { awaitReadModel } from "./transcripts-read";

const tags = ["transcripts"];
const TranscriptIdParam = z.object({ transcript_id: z.string() });
const ParticipantParam = TranscriptIdParam.extend({ participant_id: z.string() });

/**
 * The transcript after a change: the read model's view (room name, e-mails, change_seq) once it
 * holds this version, else the write side's own state mapped to the same schema.
 */
async function transcriptAnswer(c: AppContext, s: TranscriptState) {
  const { reached } = await awaitReadModel(c, s.id, s.version);
  if (reached) {
    const read = await call(c, projectionOps.get, { id: s.id, transcript_format: "text" }).catch(() => null);
    if (read) return GetTranscriptWithParticipants.parse(read);
  }
  return transcriptWithParticipantsOf(s);
}

/** Status answers: wait for the read model, then answer `{status}` alone (the wire shape). */
async function settled(c: AppContext, id: string, r: { status: string; version: number }) {
  await awaitReadModel(c, id, r.version);
  return { status: r.status };
}

export function transcriptWriteRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts",
      operationId: "v1_transcripts_create",
      tags,
      middleware: [requireUserUnlessPublic, idempotent] as const,
      request: { ...body(CreateTranscript), headers: IdempotencyKeyHeaders },
      responses: { 200: json(GetTranscriptWithParticipants), ...validationError },
    }),
    async (c) => c.json(await transcriptAnswer(c, await call(c, transcriptionOps.create, { transcript: c.req.valid("json") })), 200),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/transcripts/{transcript_id}",
      operationId: "v1_transcript_update",
      tags,
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, ...body(UpdateTranscript) },
      responses: { 200: json(GetTranscriptWithParticipants), ...validationError },
    }),
    async (c) => {
      const s = await call(c, transcriptionOps.update, { id: c.req.valid("param").transcript_id, patch: c.req.valid("json") });
      return c.json(await transcriptAnswer(c, s), 200);
    },
  );

  const statusRoute = (method: "delete" | "post", path: string, operationId: string, op: typeof transcriptionOps.delete) =>
    app.openapi(
      createRoute({
        method,
        path,
        operationId,
        tags,
        middleware: [requireUser] as const,
        request: { params: TranscriptIdParam },
        responses: { 200: json(DeletionStatus), ...validationError },
      }),
      async (c) => {
        const id = c.req.valid("param").transcript_id;
        return c.json(await settled(c, id, await call(c, op, { id })), 200);
      },
    );
  statusRoute("delete", "/v1/transcripts/{transcript_id}", "v1_transcript_delete", transcriptionOps.delete);
  statusRoute("post", "/v1/transcripts/{transcript_id}/restore", "v1_transcript_restore", transcriptionOps.restore);
  statusRoute("delete", "/v1/transcripts/{transcript_id}/destroy", "v1_transcript_destroy", transcriptionOps.destroy);

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/process",
      operationId: "v1_transcript_process",
      tags,
      middleware: [requireUserUnlessPublic] as const,
      request: { params: TranscriptIdParam },
      responses: { 200: json(ProcessStatus), ...validationError },
    }),
    async (c) => {
      const id = c.req.valid("param").transcript_id;
      return c.json(await settled(c, id, await call(c, transcriptionOps.process, { id })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/runs",
      operationId: "v1_transcript_runs",
      tags,
      description:
        "Scribe extension: the transcript's processing runs, newest first, with each step's status, attempts, timings and last error.",
      middleware: [requireUserUnlessPublic] as const,
      request: { params: TranscriptIdParam },
      responses: { 200: json(TranscriptRuns), ...validationError },
    }),
    async (c) => c.json(await call(c, transcriptionOps.runs, { id: c.req.valid("param").transcript_id }), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/participants",
      operationId: "v1_transcript_add_participant",
      tags,
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, ...body(CreateParticipant) },
      responses: { 200: json(Participant), ...validationError },
    }),
    async (c) => {
      const id = c.req.valid("param").transcript_id;
      const r = await call(c, transcriptionOps.addParticipant, { id, participant: c.req.valid("json") });
      await awaitReadModel(c, id, r.version);
      return c.json(r.participant, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/transcripts/{transcript_id}/participants/{participant_id}",
      operationId: "v1_transcript_update_participant",
      tags,
      middleware: [requireUser] as const,
      request: { params: ParticipantParam, ...body(UpdateParticipant) },
      responses: { 200: json(Participant), ...validationError },
    }),
    async (c) => {
      const { transcript_id: id, participant_id } = c.req.valid("param");
      const r = await call(c, transcriptionOps.updateParticipant, { id, participant_id, patch: c.req.valid("json") });
      await awaitReadModel(c, id, r.version);
      return c.json(r.participant, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/transcripts/{transcript_id}/participants/{participant_id}",
      operationId: "v1_transcript_delete_participant",
      tags,
      middleware: [requireUser] as const,
      request: { params: ParticipantParam },
      responses: { 200: json(DeletionStatus), ...validationError },
    }),
    async (c) => {
      const { transcript_id: id, participant_id } = c.req.valid("param");
      return c.json(await settled(c, id, await call(c, transcriptionOps.deleteParticipant, { id, participant_id })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/transcripts/{transcript_id}/speaker/assign",
      operationId: "v1_transcript_assign_speaker",
      tags,
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, ...body(SpeakerAssignment) },
      responses: { 200: json(SpeakerAssignmentStatus), ...validationError },
    }),
    async (c) => {
      const id = c.req.valid("param").transcript_id;
      return c.json(await settled(c, id, await call(c, transcriptionOps.assignSpeaker, { id, assignment: c.req.valid("json") })), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/transcripts/{transcript_id}/speaker/merge",
      operationId: "v1_transcript_merge_speaker",
      tags,
      middleware: [requireUser] as const,
      request: { params: TranscriptIdParam, ...body(SpeakerMerge) },
      responses: { 200: json(SpeakerAssignmentStatus), ...validationError },
    }),
    async (c) => {
      const id = c.req.valid("param").transcript_id;
      return c.json(await settled(c, id, await call(c, transcriptionOps.mergeSpeakers, { id, merge: c.req.valid("json") })), 200);
    },
  );
}
