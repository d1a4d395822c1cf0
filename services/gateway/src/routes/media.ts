// Transcript media (api.md §2.14): mp3 (GET + HEAD, byte ranges, `?token=`), waveform, composed
// video URL (and the file itself for drivers that cannot presign), zip export. The recordings
// service decides access and names the object; this module streams it from storage, never whole.
import { once } from "node:events";
import { Readable } from "node:stream";
import { OpenAPIHono, createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { AudioToken, AudioWaveform, VideoUrlResponse, recordingsOps, type ObjectLocation, type TopicRecord } from "@scribe/contracts";
import { NotFound, isAppError, readSmallObject } from "@scribe/kit";
import archiver from "archiver";
import { linkTokenIdentity } from "../auth/media-token";
import { call, requireUser, type AppContext, type AppEnv } from "../http/context";
import { parseRange } from "../http/range";
import { json, validationError } from "./responses";

const TranscriptParam = z.object({ transcript_id: z.string() });
const TokenQuery = z.object({ token: z.string().nullable().optional() });
const tags = ["transcripts"];
const EXPOSE = "content-type, accept-ranges, content-length, content-range, content-encoding";
/** GET /v1/transcripts/{transcript_id}/<suffix>, signed-in callers only. */
function signedInGet<R extends RouteConfig["responses"]>(suffix: string, operationId: string, responses: R) {
  return createRoute({
    method: "get",
    path: `/v1/transcripts/{transcript_id}/${suffix}`,
    operationId,
    tags,
    middleware: [requireUser] as const,
    request: { params: TranscriptParam },
    responses: { ...responses, ...validationError },
  });
}
const binary = (type: string, description: string) => ({
  content: { [type]: { schema: z.string().openapi({ format: "binary" }) } },
  description,
});

/**
 * Serve one stored object with HEAD and single byte ranges. Ranges are computed here against the
 * object's size and forwarded to the driver, so local files and S3 objects answer identically.
 */
async function serveObject(
  c: AppContext,
  location: ObjectLocation,
  opts: { contentType: string; disposition: string | null; missing: string },
): Promise<Response> {
  const storage = c.get("deps").openBucket(location.bucket);
  const info = await storage.head(location.key);
  if (!info) throw NotFound(opts.missing);
  const headers: Record<string, string> = {
    "content-type": opts.contentType,
    "accept-ranges": "bytes",
    "content-encoding": "identity",
    "access-control-expose-headers": EXPOSE,
  };
  // HEAD: headers of the whole object; Range is ignored and no stream is opened.
  if (c.req.method === "HEAD") return new Response(null, { status: 200, headers: { ...headers, "content-length": String(info.size) } });

  const rangeHeader = c.req.header("range");
  const range = rangeHeader === undefined ? null : parseRange(rangeHeader, info.size);
  if (range === "unsatisfiable") {
    return c.json({ detail: `Invalid request range (Range:'${rangeHeader}')` }, 416, {
      "content-range": `bytes */${info.size}`,
      "access-control-expose-headers": EXPOSE,
    });
  }
  if (opts.disposition) headers["content-disposition"] = opts.disposition;
  if (info.size === 0) return new Response(null, { status: 200, headers: { ...headers, "content-length": "0" } });
  const { body } = await storage.get(location.key, range ? { range } : {});
  const length = range ? range.end - range.start + 1 : info.size;
  headers["content-length"] = String(length);
  if (range) headers["content-range"] = `bytes ${range.start}-${range.end}/${info.size}`;
  return new Response(Readable.toWeb(body) as ReadableStream, { status: range ? 206 : 200, headers });
}

const Waveform = z.union([z.array(z.number()), z.object({ data: z.array(z.number()) })]);

/** metadata.json as the reference writes it (indent 2, this key order). */
function metadataJson(manifest: Awaited<ReturnType<typeof call<typeof recordingsOps.zip>>>, topics: TopicRecord[]): string {
  const m = manifest.metadata;
  const ordered = {
    id: m.id,
    title: m.title,
    created_at: m.created_at,
    duration: m.duration,
    source_language: m.source_language,
    target_language: m.target_language,
    short_summary: m.short_summary,
    long_summary: m.long_summary,
    topics,
    participants: m.participants,
    action_items: m.action_items,
    webvtt: m.webvtt,
    recording_id: m.recording_id,
    meeting_id: m.meeting_id,
  };
  return JSON.stringify(ordered, null, 2);
}

export function mediaRoutes(app: OpenAPIHono<AppEnv>): void {
  const mp3 = {
    path: "/v1/transcripts/{transcript_id}/audio/mp3",
    tags,
    request: { params: TranscriptParam, query: TokenQuery },
    responses: { 200: binary("audio/mpeg", "The audio (206 for a byte range)"), ...validationError },
  };
  // Hono answers HEAD with the GET handler (body dropped); the handler opens no stream for HEAD.
  app.openapi(
    createRoute({ ...mp3, method: "get", operationId: "v1_transcript_get_audio_mp3", middleware: [linkTokenIdentity("audio")] as const }),
    async (c) => {
      const { transcript_id } = c.req.valid("param");
      const location = await call(c, recordingsOps.audio, { transcript_id });
      return serveObject(c, location, {
        contentType: "audio/mpeg",
        disposition: `inline; filename=${location.filename}`,
        missing: "Audio file not found",
      });
    },
  );
  app.openAPIRegistry.registerPath({ ...mp3, method: "head", operationId: "v1_transcript_head_audio_mp3" });

  // Not in the reference: the web app's audio player and download link take one of these instead of
  // the user's own token, which would otherwise sit in a URL (history, logs, a shared link) for as
  // long as it lives and open the whole API.
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/transcripts/{transcript_id}/audio/token",
      operationId: "v1_transcript_create_audio_token",
      tags,
      middleware: [requireUser] as const,
      request: { params: TranscriptParam },
      responses: { 200: json(AudioToken), ...validationError },
    }),
    // Minted for any id without asking anyone: the token is the caller's own identity narrowed to one
    // transcript's audio, so the mp3 route decides access when it is used, exactly as for the caller.
    // That keeps it one signature, which the app asks for while the page loads.
    async (c) => {
      const { transcript_id } = c.req.valid("param");
      const { auth, config } = c.get("deps");
      const token = await auth.mintMediaToken({ userId: c.get("caller").userId!, transcriptId: transcript_id });
      return c.json({ token, expires_in: config.MEDIA_TOKEN_TTL_SECONDS }, 200);
    },
  );

  app.openapi(signedInGet("audio/waveform", "v1_transcript_get_audio_waveform", { 200: json(AudioWaveform) }), async (c) => {
    const location = await call(c, recordingsOps.waveform, c.req.valid("param"));
    const storage = c.get("deps").openBucket(location.bucket);
    let raw: Buffer;
    try {
      raw = await readSmallObject(storage, location.key);
    } catch (e) {
      if (isAppError(e) && e.kind === "not_found") throw NotFound("Audio not found");
      throw e;
    }
    let parsed: z.infer<typeof Waveform> | null = null;
    try {
      parsed = Waveform.parse(JSON.parse(raw.toString("utf8")));
    } catch {
      c.get("log").warn({ key: location.key }, "waveform file is not a JSON array of numbers");
    }
    if (!parsed) throw NotFound("Audio not found");
    return c.json({ data: Array.isArray(parsed) ? parsed : parsed.data }, 200);
  });

  app.openapi(signedInGet("video/url", "v1_transcript_get_video_url", { 200: json(VideoUrlResponse) }), async (c) =>
    c.json(await call(c, recordingsOps.videoUrl, c.req.valid("param")), 200),
  );

  // Not in the reference: where video/url points when the storage driver cannot presign (local).
  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/transcripts/{transcript_id}/video/file",
      operationId: "v1_transcript_get_video_file",
      tags,
      middleware: [linkTokenIdentity("other"), requireUser] as const,
      request: { params: TranscriptParam, query: TokenQuery },
      responses: { 200: binary("video/mp4", "The composed video (206 for a byte range)"), ...validationError },
    }),
    async (c) => {
      const location = await call(c, recordingsOps.videoFile, c.req.valid("param"));
      return serveObject(c, location, { contentType: "video/mp4", disposition: "inline", missing: "No video available" });
    },
  );

  app.openapi(
    signedInGet("download/zip", "v1_transcript_download_zip", { 200: binary("application/zip", "The transcript's files") }),
    async (c) => {
      const { transcript_id } = c.req.valid("param");
      const manifest = await call(c, recordingsOps.zip, { transcript_id });
      const log = c.get("log");
      const { openBucket } = c.get("deps");
      // Media is stored as is (already compressed); metadata.json is deflated.
      const archive = archiver("zip", { zlib: { level: 6 } });
      archive.on("warning", (e) => log.warn({ err: e }, "zip warning"));
      const write = async () => {
        for (const entry of manifest.entries) {
          let body: Readable;
          try {
            body = (await openBucket(entry.bucket).get(entry.key)).body;
          } catch (e) {
            log.warn({ err: e, key: entry.key }, "zip: file not available; skipped");
            continue;
          }
          // One object open at a time: wait until the archive has taken this entry.
          const taken = once(archive, "entry");
          archive.append(body, { name: entry.name, store: true });
          await taken;
        }
        const topics: TopicRecord[] = [];
        for (let position = 0; position < manifest.topic_count; position++) {
          topics.push(await call(c, recordingsOps.zipTopic, { transcript_id, position }));
        }
        archive.append(metadataJson(manifest, topics), { name: "metadata.json" });
        await archive.finalize();
      };
      write().catch((e: unknown) => {
        log.error({ err: e }, "zip export failed mid-stream");
        archive.destroy(e as Error);
      });
      return new Response(Readable.toWeb(archive) as ReadableStream, {
        status: 200,
        headers: { "content-type": "application/zip", "content-disposition": `attachment; filename=${manifest.filename}` },
      });
    },
  );
}
