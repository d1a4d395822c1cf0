// Live recording (api.md §2.14 record/webrtc): the browser's SDP offer goes to the transcription
// service, which opens the peer connection and records; its answer comes back as is. Live results
// arrive on the transcript WebSocket.
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { RtcOffer, transcriptionOps } from "@scribe/contracts";
import { call, requireUserUnlessPublic, type AppEnv } from "../http/context";
import { body, json, validationError } from "./responses";

/** Gathering ICE candidates (up to 10 s with STUN/TURN servers) happens before the answer. */
const ANSWER_TIMEOUT_MS = 20_000;

export function liveRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/record/webrtc",
      operationId: "v1_transcript_record_webrtc",
      tags: ["transcripts"],
      middleware: [requireUserUnlessPublic] as const,
      request: { params: z.object({ transcript_id: z.string() }), ...body(RtcOffer) },
      // api.md: the answer is an RtcOffer-shaped JSON the reference declares no schema for.
      responses: { 200: json(z.unknown()), ...validationError },
    }),
    async (c) => {
      const id = c.req.valid("param").transcript_id;
      const offer = c.req.valid("json");
      return c.json(await call(c, transcriptionOps.recordWebrtc, { id, offer }, { timeoutMs: ANSWER_TIMEOUT_MS }), 200);
    },
  );
}
