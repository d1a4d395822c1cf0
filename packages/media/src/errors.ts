// The one error type of the media package: a code the pipelines branch on (corrupt input fails a
// run at once, a timeout is retried) and a message that names the input and ffmpeg's own words.

export type MediaErrorCode =
  /** The input does not exist (missing file, HTTP 404/403 for a presigned URL). */
  | "not_found"
  /** ffmpeg cannot read the input: not a media file, truncated header, unknown container. */
  | "corrupt"
  /** The input is a readable media file without an audio stream. */
  | "no_audio"
  /** A container that is not on the allow-list of self-contained formats (playlists, lists, images). */
  | "unsupported_format"
  /** The input decodes but holds no samples, or only silence. */
  | "silent"
  /** The caller asked for something impossible (bad offset, no inputs). */
  | "invalid_argument"
  /** The operation ran longer than its timeout and was killed. */
  | "timeout"
  /** The caller's AbortSignal fired; the process was killed. */
  | "aborted"
  /** Anything else ffmpeg/ffprobe reported (I/O errors, network, out of disk). */
  | "failed";

/** Codes that will fail the same way on every attempt: retrying them only delays the error state. */
const PERMANENT: ReadonlySet<MediaErrorCode> = new Set([
  "not_found",
  "corrupt",
  "unsupported_format",
  "no_audio",
  "silent",
  "invalid_argument",
]);

export class MediaError extends Error {
  /**
   * Read structurally by the workflow runner (`retryable === false` fails a step at once), so
   * this package needs no dependency on the runner.
   */
  readonly retryable: boolean;

  constructor(
    readonly code: MediaErrorCode,
    message: string,
    opts: { cause?: unknown; stderr?: string } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "MediaError";
    this.retryable = !PERMANENT.has(code);
    this.stderr = opts.stderr ?? "";
  }

  /** The tail of ffmpeg's stderr, for logs (already summarised in the message). */
  readonly stderr: string;
}

export function isMediaError(e: unknown, code?: MediaErrorCode): e is MediaError {
  return e instanceof MediaError && (code === undefined || e.code === code);
}

/** ffmpeg's wording for inputs it cannot parse, across the demuxers we meet (WebM, MP4, MP3, WAV, OGG). */
const CORRUPT_PATTERNS = [
  /Invalid data found when processing input/i,
  /EBML header parsing failed/i,
  /moov atom not found/i,
  /could not find codec parameters/i,
  /Format .* detected only with low score/i,
  /does not contain any stream/i,
];
/** The input's format was refused by `-format_whitelist` (see SELF_CONTAINED_FORMATS). */
const UNSUPPORTED_PATTERNS = [/Format not on whitelist/i, /not on whitelist/i];
const NOT_FOUND_PATTERNS = [/No such file or directory/i, /Server returned 40[34]/i, /HTTP error 40[34]/i];
const NO_AUDIO_PATTERNS = [/matches no streams/i, /Output file #\d+ does not contain any stream/i, /Stream map .* matches no streams/i];

/** Turn a failed ffmpeg/ffprobe run into a MediaError with the right code. */
export function classifyFailure(tool: string, input: string, exitCode: number | null, stderr: string): MediaError {
  const lastLines = stderr.trim().split("\n").slice(-3).join(" | ");
  const detail = lastLines || `exit code ${exitCode}`;
  const code: MediaErrorCode = UNSUPPORTED_PATTERNS.some((p) => p.test(stderr))
    ? "unsupported_format"
    : NOT_FOUND_PATTERNS.some((p) => p.test(stderr))
      ? "not_found"
      : NO_AUDIO_PATTERNS.some((p) => p.test(stderr))
        ? "no_audio"
        : CORRUPT_PATTERNS.some((p) => p.test(stderr))
          ? "corrupt"
          : "failed";
  const what = {
    unsupported_format: "unsupported media format (only self-contained audio/video files are accepted, no playlists or file lists)",
    not_found: "input not found",
    no_audio: "input has no audio stream",
    corrupt: "input is corrupt or not a supported audio/video file",
    failed: `${tool} failed`,
  }[code as "unsupported_format" | "not_found" | "no_audio" | "corrupt" | "failed"];
  return new MediaError(code, `${what}: ${describeInput(input)}: ${detail}`, { stderr });
}

/** Presigned URLs carry credentials in the query string: never put those in messages or logs. */
export function describeInput(input: string): string {
  if (/^https?:\/\//i.test(input)) {
    try {
      const u = new URL(input);
      return `${u.origin}${u.pathname}`;
    } catch {
      return "(url)";
    }
  }
  return input;
}
