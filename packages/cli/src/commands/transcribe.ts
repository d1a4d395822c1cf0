// `scribe transcribe <file>`: what a user without the web app wants: upload a local media file through
// the public API (the generated client, chunked as the upload API takes it), follow the processing
// with a progress display, then print the transcript. Progress goes to stderr, the transcript to
// stdout, so `scribe transcribe a.mp3 > a.txt` keeps only the transcript.
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { Option } from "commander";
import { createScribeClient, type ScribeClient } from "@scribe/client";
import { act, examples, positiveInt, type CliCommand, type CliIo } from "../command";
import { DEV_DEFAULTS } from "./dev";

export const TRANSCRIPT_FORMATS = ["text", "vtt", "json"] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];
const API_FORMAT = { text: "text", vtt: "webvtt-named", json: "json" } as const;

/** A failure the user can act on (exit 1, the message only). */
export class TranscribeError extends Error {}

export interface TranscribeOptions {
  file: string;
  /** Gateway base URL. */
  url: string;
  token?: string;
  apiKey?: string;
  /** Transcript name (default: the file's name). */
  name?: string;
  /** Spoken language, e.g. `en` (default: the API's). */
  language?: string;
  format: TranscriptFormat;
  chunkBytes: number;
  timeoutMs: number;
  pollMs: number;
}

export interface TranscribeResult {
  id: string;
  status: string;
  /** What was printed on stdout. */
  output: string;
}

/** Redraws one status line on a terminal; prints each new status as its own line otherwise. */
function progressDisplay(io: CliIo, tty: boolean) {
  let shown = "";
  return {
    update(text: string, milestone: boolean) {
      if (tty) {
        process.stderr.write(`\r\x1b[2K${text}`);
        shown = text;
      } else if (milestone) io.err(text);
    },
    done() {
      if (tty && shown) process.stderr.write("\n");
      shown = "";
    },
  };
}

const mb = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function detailOf(error: unknown): string {
  const d = (error as { detail?: unknown } | undefined)?.detail;
  return typeof d === "string" ? d : JSON.stringify(d ?? error ?? null);
}

/** The API answered with an error: say what it means for this command. */
function refused(what: string, status: number, error: unknown): TranscribeError {
  if (status === 401 || status === 403)
    return new TranscribeError(
      `${what}: the API refused the credentials (${status} ${detailOf(error)}); pass --token or --api-key (or set SCRIBE_TOKEN / SCRIBE_API_KEY)`,
    );
  return new TranscribeError(`${what} failed: ${status} ${detailOf(error)}`);
}

/** Calls that do not reach the API at all become a TranscribeError saying where it was looked for. */
async function reach<T>(url: string, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new TranscribeError(
      `cannot reach Scribe at ${new URL(url).origin} (${cause?.code ?? cause?.message ?? (e as Error).message}); is it running? Point --url (or SCRIBE_URL) at its API`,
    );
  }
}

async function upload(api: ScribeClient, opts: TranscribeOptions, id: string, size: number, show: ReturnType<typeof progressDisplay>) {
  const total = Math.max(1, Math.ceil(size / opts.chunkBytes));
  const filename = basename(opts.file);
  const file = await open(opts.file);
  try {
    for (let n = 0; n < total; n++) {
      const length = Math.min(opts.chunkBytes, size - n * opts.chunkBytes);
      const bytes = Buffer.alloc(length);
      await file.read(bytes, 0, length, n * opts.chunkBytes);
      const form = new FormData();
      form.append("chunk", new Blob([bytes]), filename);
      // The recordings service learns of a new transcript from its event: a 404 right after the
      // create means "not yet", for a few seconds.
      const deadline = performance.now() + 30_000;
      for (;;) {
        const res = await reach(
          opts.url,
          api.POST("/v1/transcripts/{transcript_id}/record/upload", {
            params: { path: { transcript_id: id }, query: { chunk_number: n, total_chunks: total } },
            body: form as unknown as { chunk: string },
            bodySerializer: (body) => body as unknown as FormData,
          }),
        );
        if (res.response.ok) break;
        if (res.response.status !== 404 || performance.now() > deadline)
          throw refused(`uploading chunk ${n + 1} of ${total}`, res.response.status, res.error);
        await sleep(250);
      }
      const sent = Math.min(size, (n + 1) * opts.chunkBytes);
      show.update(
        `uploading ${filename}: ${Math.floor((100 * sent) / Math.max(size, 1))}% (${mb(sent)} of ${mb(size)}), chunk ${n + 1}/${total}`,
        true,
      );
    }
  } finally {
    await file.close();
  }
  show.done();
}

/** Poll the transcript until it is ended or failed, showing its status and the time spent. */
async function follow(api: ScribeClient, opts: TranscribeOptions, id: string, show: ReturnType<typeof progressDisplay>): Promise<string> {
  const started = performance.now();
  let last = "";
  for (;;) {
    const res = await reach(opts.url, api.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id } } }));
    if (!res.data) throw refused(`reading transcript ${id}`, res.response.status, res.error);
    const status = res.data.status;
    const seconds = Math.round((performance.now() - started) / 1000);
    show.update(`transcript ${id}: ${status} (${seconds} s)`, status !== last);
    last = status;
    if (status === "ended" || status === "error") {
      show.done();
      return status;
    }
    if (performance.now() - started > opts.timeoutMs) {
      show.done();
      throw new TranscribeError(
        `timed out after ${Math.round(opts.timeoutMs / 1000)} s with transcript ${id} still ${status}; see \`scribe runs list --subject ${id}\`, or raise --timeout`,
      );
    }
    await sleep(opts.pollMs);
  }
}

export async function transcribeFile(opts: TranscribeOptions, io: CliIo): Promise<TranscribeResult> {
  const info = await stat(opts.file).catch((e: NodeJS.ErrnoException) => {
    throw new TranscribeError(`cannot read ${opts.file}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  });
  if (!info.isFile()) throw new TranscribeError(`${opts.file} is not a file`);
  const api = createScribeClient({ baseUrl: opts.url, token: opts.token, apiKey: opts.apiKey });
  const show = progressDisplay(io, io.isTty);

  const created = await reach(
    opts.url,
    api.POST("/v1/transcripts", {
      body: {
        name: opts.name ?? basename(opts.file),
        ...(opts.language ? { source_language: opts.language, target_language: opts.language } : {}),
      },
    }),
  );
  if (!created.data) throw refused("creating the transcript", created.response.status, created.error);
  const id = created.data.id;
  io.err(`transcript ${id} created`);
  await upload(api, opts, id, info.size, show);
  const status = await follow(api, opts, id, show);
  if (status === "error") {
    throw new TranscribeError(
      `processing of transcript ${id} failed (status error): see \`scribe runs list --subject ${id}\` and \`scribe runs show <run id>\``,
    );
  }
  const res = await reach(
    opts.url,
    api.GET("/v1/transcripts/{transcript_id}", {
      params: { path: { transcript_id: id }, query: { transcript_format: API_FORMAT[opts.format] } },
    }),
  );
  if (!res.data) throw refused(`reading transcript ${id}`, res.response.status, res.error);
  const output = opts.format === "json" ? JSON.stringify(res.data, null, 2) : String(res.data.transcript);
  io.out(output);
  return { id, status, output };
}

interface TranscribeFlags {
  url?: string;
  token?: string;
  apiKey?: string;
  name?: string;
  language?: string;
  format: TranscriptFormat;
  json?: boolean;
  chunkMb: number;
  timeout: number;
}

export const transcribeCli: CliCommand = {
  name: "transcribe",
  register(program, ctx) {
    const cmd = program
      .command("transcribe")
      .summary("upload a local audio or video file, follow its processing, print the transcript")
      .description(
        "Upload a local audio or video file through Scribe's API (in chunks), follow the processing with a progress display (plain lines when stderr is not a terminal), then print the transcript on stdout. Exits 1 if processing fails.",
      )
      .argument("<file>", "the media file (anything ffmpeg reads: mp3, wav, m4a, webm, mp4, …)")
      .option("--url <url>", `Scribe's API (env SCRIBE_URL; default http://127.0.0.1:${DEV_DEFAULTS.PORT}, \`scribe dev\`)`)
      .option("--token <token>", "bearer token (env SCRIBE_TOKEN)")
      .option("--api-key <key>", "API key, sent as X-API-Key (env SCRIBE_API_KEY)")
      .option("--name <name>", "the transcript's name (default: the file's name)")
      .option("--language <code>", "spoken language, e.g. en or de (default: the server's, en)")
      .addOption(new Option("--format <format>", "how to print the transcript").choices(TRANSCRIPT_FORMATS).default("text"))
      .option("--json", "print the whole transcript as JSON (same as --format json)")
      .addOption(
        new Option("--chunk-mb <n>", "upload chunk size in MB (below the server's UPLOAD_MAX_CHUNK_BYTES)")
          .argParser(positiveInt)
          .default(16),
      )
      .addOption(new Option("--timeout <seconds>", "give up waiting after this long").argParser(positiveInt).default(3600))
      .action(
        act(ctx, async (file: string, flags: TranscribeFlags) => {
          const env = ctx.env;
          try {
            await transcribeFile(
              {
                file,
                url: (flags.url ?? (env.SCRIBE_URL || `http://127.0.0.1:${env.PORT || DEV_DEFAULTS.PORT}`)).replace(/\/+$/, ""),
                token: flags.token ?? (env.SCRIBE_TOKEN || undefined),
                apiKey: flags.apiKey ?? (env.SCRIBE_API_KEY || undefined),
                name: flags.name,
                language: flags.language,
                format: flags.json ? "json" : flags.format,
                chunkBytes: flags.chunkMb * 1024 ** 2,
                timeoutMs: flags.timeout * 1000,
                pollMs: 1000,
              },
              { ...ctx.io, isTty: Boolean(process.stderr.isTTY) },
            );
            return 0;
          } catch (e) {
            if (!(e instanceof TranscribeError)) throw e;
            ctx.io.err(`scribe transcribe: ${e.message}`);
            return 1;
          }
        }),
      );
    examples(
      cmd,
      "scribe transcribe meeting.mp3 --api-key $SCRIBE_API_KEY",
      "SCRIBE_URL=https://scribe.example.com scribe transcribe interview.m4a --language de --format vtt > interview.vtt",
      "scribe transcribe call.wav --json | jq -r '.title'",
    );
  },
};
