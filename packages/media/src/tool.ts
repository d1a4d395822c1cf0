// Running ffmpeg/ffprobe: argument arrays (no shell), a timeout and an AbortSignal that kill the
// process, a bounded stderr tail for error messages, and progress read from a separate pipe (fd 3)
// so stdout stays free for streamed samples.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { MediaError, classifyFailure, describeInput } from "./errors";

export interface MediaOptions {
  /** The input's demuxer as `probe` reported it (`ProbeResult.demuxer`): read with exactly that one. */
  inputFormat?: string;
  /** Kills the process; the call rejects with MediaError("aborted"). */
  signal?: AbortSignal;
  /** Kills the process after this long; the call rejects with MediaError("timeout"). */
  timeoutMs?: number;
}

export interface ProgressOptions extends MediaOptions {
  /** Seconds of output written so far, a few times per second (long steps turn this into heartbeats). */
  onProgress?: (outSeconds: number) => void;
}

export const FFMPEG = process.env.FFMPEG_PATH ?? "ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH ?? "ffprobe";

/** Generous defaults: the workflow step timeout is the real bound; these only stop runaway processes. */
export const DEFAULT_PROBE_TIMEOUT_MS = 60_000;
export const DEFAULT_PROCESS_TIMEOUT_MS = 60 * 60_000;

const STDERR_TAIL_BYTES = 8 * 1024;
const MAX_COLLECTED_STDOUT = 64 * 1024 * 1024;

export interface ToolRun {
  /** Collected stdout (when no onStdout was given). */
  stdout: string;
  stderr: string;
  /** Output time (seconds) from ffmpeg's final progress report, when it gave one. */
  outSeconds: number | null;
}

export interface ToolCall extends ProgressOptions {
  tool: "ffmpeg" | "ffprobe";
  args: string[];
  /** The input named in error messages. */
  input: string;
  /** Streamed stdout; when set, stdout is not collected. */
  onStdout?: (chunk: Buffer) => void;
  /** Ask ffmpeg for progress on fd 3 (ffmpeg only). */
  progress?: boolean;
}

/**
 * Demuxers of self-contained audio/video containers: the only ones ffmpeg may pick for an input.
 * Media is untrusted (issue 15.1): playlists and lists (hls, concat, ffconcat, image2, tee,
 * webm_dash_manifest, …) make ffmpeg open further files or URLs named inside them, so a user could
 * read another user's stored audio. `mov` covers mp4/m4a/3gp (external data references stay off,
 * ffmpeg's default), `matroska` covers webm.
 */
export const SELF_CONTAINED_FORMATS = ["matroska", "mov", "ogg", "wav", "mp3", "flac", "aac"] as const;

/**
 * Input options for every ffmpeg/ffprobe run: local files only (no network or other protocols),
 * demuxers from the allow-list only, and the probed demuxer (`format`) named explicitly once known.
 */
export function inputGuardArgs(format?: string): string[] {
  if (format !== undefined && !(SELF_CONTAINED_FORMATS as readonly string[]).includes(format)) {
    throw new MediaError("unsupported_format", `unsupported media format ${format} (accepted: ${SELF_CONTAINED_FORMATS.join(", ")})`);
  }
  return ["-protocol_whitelist", "file", "-format_whitelist", SELF_CONTAINED_FORMATS.join(","), ...(format ? ["-f", format] : [])];
}

/** ffmpeg's input arguments for a local file (`format`: the demuxer `probe` found). */
export function inputArgs(input: string, format?: string): string[] {
  return [...inputGuardArgs(format), "-i", localPath(input)];
}

/** Media is read from local files only (a scratch copy); a URL here is a caller's mistake. */
export function localPath(input: string): string {
  if (/^[a-z][a-z0-9+.-]+:/i.test(input)) {
    throw new MediaError("invalid_argument", `media is read from local files only, got ${describeInput(input)}`);
  }
  return input;
}

function binaryOf(call: Pick<ToolCall, "tool">): string {
  return call.tool === "ffmpeg" ? FFMPEG : FFPROBE;
}

function argsOf(call: Pick<ToolCall, "tool" | "args" | "progress">): string[] {
  return call.tool === "ffmpeg"
    ? ["-nostdin", "-hide_banner", "-loglevel", "error", ...(call.progress ? ["-progress", "pipe:3", "-nostats"] : []), ...call.args]
    : ["-v", "error", ...call.args];
}

function timeoutOf(call: Pick<ToolCall, "tool" | "timeoutMs">): number {
  return call.timeoutMs ?? (call.tool === "ffprobe" ? DEFAULT_PROBE_TIMEOUT_MS : DEFAULT_PROCESS_TIMEOUT_MS);
}

export function runTool(call: ToolCall): Promise<ToolRun> {
  const { signal } = call;
  if (signal?.aborted) return Promise.reject(abortedError(call));
  const binary = binaryOf(call);
  const args = argsOf(call);
  const timeoutMs = timeoutOf(call);

  return new Promise<ToolRun>((resolve, reject) => {
    // stdio[1] and [2] are pipes by construction; the typings cannot see that through the array form.
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe", call.progress ? "pipe" : "ignore"] });
    let stderr = "";
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let outSeconds: number | null = null;
    let failure: MediaError | null = null;

    const kill = (err: MediaError) => {
      failure ??= err;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => kill(new MediaError("timeout", `${call.tool} timed out after ${timeoutMs} ms on ${describeInput(call.input)}`)),
      timeoutMs,
    );
    const onAbort = () => kill(abortedError(call));
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout!.on("data", (chunk: Buffer) => {
      if (call.onStdout) {
        try {
          call.onStdout(chunk);
        } catch (e) {
          kill(
            e instanceof MediaError
              ? e
              : new MediaError("failed", `processing ${call.tool} output failed: ${(e as Error).message}`, { cause: e }),
          );
        }
        return;
      }
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_COLLECTED_STDOUT) {
        kill(new MediaError("failed", `${call.tool} printed more than ${MAX_COLLECTED_STDOUT} bytes for ${describeInput(call.input)}`));
        return;
      }
      stdoutChunks.push(chunk);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    const progress = child.stdio[3] as Readable | null | undefined;
    if (progress) {
      let pending = "";
      progress.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) {
          const m = /^out_time_us=(\d+)$/.exec(line.trim());
          if (!m) continue;
          outSeconds = Number(m[1]) / 1e6;
          call.onProgress?.(outSeconds);
        }
      });
    }

    child.on("error", (e) => {
      failure ??= new MediaError("failed", `cannot run ${binary}: ${e.message} (is ffmpeg installed? FFMPEG_PATH/FFPROBE_PATH)`, {
        cause: e,
      });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(failure);
      if (code !== 0) return reject(classifyFailure(call.tool, call.input, code, stderr));
      resolve({ stdout: Buffer.concat(stdoutChunks).toString("utf8"), stderr, outSeconds });
    });
  });
}

/**
 * Run a tool and hand over its stdout as the consumer pulls it (ffmpeg waits while the consumer
 * works, so a long recording is never buffered). Ends with the same errors as `runTool`.
 */
export async function* streamTool(call: Omit<ToolCall, "onStdout" | "progress" | "onProgress">): AsyncGenerator<Buffer> {
  const { signal } = call;
  if (signal?.aborted) throw abortedError(call);
  const binary = binaryOf(call);
  const timeoutMs = timeoutOf(call);
  const child = spawn(binary, argsOf(call), { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  let failure: MediaError | null = null;
  const kill = (err: MediaError) => {
    failure ??= err;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(
    () => kill(new MediaError("timeout", `${call.tool} timed out after ${timeoutMs} ms on ${describeInput(call.input)}`)),
    timeoutMs,
  );
  const onAbort = () => kill(abortedError(call));
  signal?.addEventListener("abort", onAbort, { once: true });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", (e) => {
      failure ??= new MediaError("failed", `cannot run ${binary}: ${e.message} (is ffmpeg installed? FFMPEG_PATH/FFPROBE_PATH)`, {
        cause: e,
      });
    });
    child.on("close", (code) => resolve(code));
  });
  try {
    for await (const chunk of child.stdout! as AsyncIterable<Buffer>) {
      if (failure) break;
      yield chunk;
    }
    const code = await exited;
    // Set from the child's callbacks, which TypeScript's narrowing does not see.
    if (failure) throw failure as MediaError;
    if (code !== 0) throw classifyFailure(call.tool, call.input, code, stderr);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

function abortedError(call: Pick<ToolCall, "tool" | "input" | "signal">): MediaError {
  const reason = call.signal?.reason;
  const why = reason instanceof Error ? reason.message : reason === undefined ? "aborted" : String(reason);
  return new MediaError("aborted", `${call.tool} on ${describeInput(call.input)} aborted: ${why}`, { cause: reason });
}
