// Live speech-to-text with pocketsphinx: one long-lived `pocketsphinx_continuous` per live stream,
// fed PCM as it arrives, so no utterance pays process start and model load (~1 s) again. Its own
// voice-activity detection ends an utterance after a short pause and prints its words at once.
//
// pocketsphinx 0.8 (Debian's 5prealpha) reads `-infile` with fopen/fread and, for a name not
// ending in `.wav`, takes raw 16 kHz s16le samples. Node's child stdin is a socket, which
// `/dev/stdin` cannot open, so each process reads a named pipe of its own. We open its write end
// only once the recogniser has opened the read end (after loading its model): a pipe closed before
// that would leave the recogniser waiting for a writer forever. Until then audio waits here.
import { spawn, type ChildProcess } from "node:child_process";
import { constants, openSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Logger } from "@scribe/kit";
import { run, SAMPLE_RATE } from "../audio";
import type { SpeechStream, SpeechStreamOptions, SttWord } from "../types";
import { parsePocketsphinxTimes, POCKETSPHINX_WORD_LINE } from "./pocketsphinx-output";

const BYTES_PER_SECOND = SAMPLE_RATE * 2;
/** Audio kept for a restarted recogniser: since the last finished utterance, at most this much. */
const REPLAY_LIMIT_SECONDS = 60;
/** Unexpected exits within a minute after which the stream stops recognising (the recording goes on). */
const MAX_RESTARTS_PER_MINUTE = 5;
/**
 * How long the recogniser may take after the end of input before it is killed: a margin plus real
 * time on the audio it has not finished (a loaded machine lags behind). Kept short: the session's
 * hand-over to processing waits for it, and the finished transcript comes from the recording.
 */
const END_TIMEOUT_MS = 10_000;
const END_TIMEOUT_PER_SECOND_MS = 1_000;

export interface PocketsphinxStreamOptions extends SpeechStreamOptions {
  /** Directory holding `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir: string;
  /** Silence that ends an utterance (`-vad_postspeech`, in 10 ms frames). */
  pauseMs: number;
  /** Speech-to-noise ratio a frame needs to count as speech (`-vad_threshold`). */
  vadThreshold: number;
  logger?: Logger;
}

/** How often the pipe is tried while the recogniser loads its model (about a second). */
const CONNECT_POLL_MS = 20;

/** One `pocketsphinx_continuous` process and the pipe it reads. */
interface Recogniser {
  child: ChildProcess;
  /** The pipe's write end, once the process opened the read end. */
  input: Socket | null;
  exited: boolean;
  /** Stream seconds of the first sample this process read (its times start there). */
  offset: number;
  /** Word lines of the utterance being printed. */
  lines: string[];
  stderr: string;
}

export class PocketsphinxStream implements SpeechStream {
  private readonly log: Logger | undefined;
  private readonly dir: Promise<string>;
  private current: Recogniser | null = null;
  private starting: Promise<void> | null = null;
  private generation = 0;
  /** Audio the current utterance may need again if the process dies, and where it starts (bytes). */
  private replay: Buffer[] = [];
  private replayStart = 0;
  private replayBytes = 0;
  /** Stream seconds up to which utterances were delivered (a restarted process may hear them again). */
  private deliveredUntil = 0;
  private readonly restarts: number[] = [];
  private ending = false;
  private stopped = false;
  private readonly finished: Promise<void>;
  private resolveFinished!: () => void;

  constructor(private readonly opts: PocketsphinxStreamOptions) {
    this.log = opts.logger?.child({ component: "live-stt" });
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.dir = mkdtemp(join(tmpdir(), "scribe-sphinx-live-"));
    this.starting = this.startRecogniser();
  }

  /** Process id of the running recogniser (tests kill it to check the restart). */
  get pid(): number | undefined {
    return this.current?.child.pid;
  }

  /** Times the recogniser was restarted after dying. */
  get restartCount(): number {
    return this.generation - 1;
  }

  write(pcm: Buffer): void {
    if (this.stopped || this.ending) return;
    this.replay.push(pcm);
    this.replayBytes += pcm.length;
    while (this.replayBytes - this.replay[0]!.length > REPLAY_LIMIT_SECONDS * BYTES_PER_SECOND) {
      const dropped = this.replay.shift()!;
      this.replayBytes -= dropped.length;
      this.replayStart += dropped.length;
    }
    this.current?.input?.write(pcm);
  }

  async end(): Promise<void> {
    if (!this.ending && !this.stopped) {
      this.ending = true;
      await this.starting;
      if (this.current) {
        const child = this.current.child;
        // Nothing left unrecognised (no audio at all, or only what was delivered): no need to wait.
        if (this.replayBytes === 0) child.kill("SIGKILL");
        else this.current.input?.end();
        const pendingSeconds = this.replayBytes / BYTES_PER_SECOND;
        const timer = setTimeout(
          () => {
            this.log?.warn({ pid: child.pid, pendingSeconds }, "live recogniser did not finish after the end of input; killed");
            child.kill("SIGKILL");
          },
          END_TIMEOUT_MS + pendingSeconds * END_TIMEOUT_PER_SECOND_MS,
        );
        await this.finished;
        clearTimeout(timer);
      } else {
        this.finish();
      }
    }
    await this.finished;
  }

  kill(): void {
    if (this.stopped) return;
    this.stopped = true;
    const r = this.current;
    this.current = null;
    r?.input?.destroy();
    r?.child.kill("SIGKILL");
    this.finish();
  }

  private finish(): void {
    this.stopped = true;
    this.replay = [];
    void this.dir.then((d) => rm(d, { recursive: true, force: true })).catch(() => {});
    this.resolveFinished();
  }

  private startRecogniser(): Promise<void> {
    const generation = ++this.generation;
    return (async () => {
      const fifo = join(await this.dir, `input-${generation}.pcm`);
      await run("mkfifo", ["-m", "600", fifo]);
      if (this.stopped) return;
      const m = this.opts.modelDir;
      const child = spawn(
        "pocketsphinx_continuous",
        [
          ...["-hmm", `${m}/en-us`, "-lm", `${m}/en-us.lm.bin`, "-dict", `${m}/cmudict-en-us.dict`],
          ...["-infile", fifo, "-time", "yes", "-logfn", "/dev/null"],
          ...["-vad_postspeech", String(Math.max(1, Math.round(this.opts.pauseMs / 10)))],
          ...["-vad_threshold", String(this.opts.vadThreshold)],
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      const r: Recogniser = { child, input: null, exited: false, offset: 0, lines: [], stderr: "" };
      this.current = r;
      child.stderr!.setEncoding("utf8").on("data", (d: string) => {
        r.stderr = (r.stderr + d).slice(-2000);
      });
      createInterface({ input: child.stdout! }).on("line", (line) => this.onLine(r, line));
      child.on("error", (e) => {
        // Not installed: nothing to restart.
        this.log?.error({ err: e }, "live recogniser could not start (Debian packages pocketsphinx and pocketsphinx-en-us)");
        this.current = null;
        this.finish();
      });
      child.on("close", (code, signal) => this.onExit(r, code, signal, fifo));
      this.log?.debug({ pid: child.pid, generation }, "live recogniser started");
      void this.connect(r, fifo).catch((e: unknown) => {
        this.log?.error({ err: e }, "live recogniser input could not be opened");
        child.kill("SIGKILL");
      });
    })().catch((e: unknown) => {
      this.log?.error({ err: e }, "live recogniser could not start");
      this.finish();
    });
  }

  /** Open the pipe once the process reads it, then hand it the audio it has not heard. */
  private async connect(r: Recogniser, fifo: string): Promise<void> {
    let fd: number | null = null;
    while (fd === null) {
      if (r.exited || this.current !== r) return;
      try {
        fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (e) {
        // ENXIO: no reader yet (still loading its model).
        if ((e as NodeJS.ErrnoException).code !== "ENXIO") throw e;
        await delay(CONNECT_POLL_MS);
      }
    }
    const input = new Socket({ fd, readable: false, writable: true });
    // EPIPE when the process dies: its exit restarts the stream.
    input.on("error", (e) => this.log?.debug({ err: e }, "live recogniser input closed"));
    r.input = input;
    // Whatever the last process had not finished (or everything so far, for the first one).
    r.offset = this.replayStart / BYTES_PER_SECOND;
    if (this.replay.length > 0) input.write(Buffer.concat(this.replay));
    if (this.ending) input.end();
    this.log?.debug({ pid: r.child.pid, offset: r.offset }, "live recogniser reading");
  }

  private onLine(r: Recogniser, line: string): void {
    const word = POCKETSPHINX_WORD_LINE.exec(line.trim());
    if (!word) {
      // A hypothesis line opens the next utterance; words left without `</s>` belong to the last.
      this.deliver(r);
      return;
    }
    r.lines.push(line);
    if (word[1] === "</s>") this.deliver(r);
  }

  private deliver(r: Recogniser): void {
    if (r.lines.length === 0 || this.stopped) return;
    const lines = r.lines;
    r.lines = [];
    const end = Math.max(...lines.map((l) => Number(POCKETSPHINX_WORD_LINE.exec(l.trim())![3]))) + r.offset;
    // A restarted process hears again the audio after the last delivered utterance, never before.
    const words: SttWord[] = parsePocketsphinxTimes(lines.join("\n"), r.offset).filter((w) => w.start >= this.deliveredUntil - 0.01);
    this.deliveredUntil = Math.max(this.deliveredUntil, end);
    this.dropReplayBefore(end);
    if (words.length > 0) this.opts.onUtterance({ words });
  }

  private dropReplayBefore(seconds: number): void {
    const byte = Math.floor(seconds * BYTES_PER_SECOND);
    while (this.replay.length > 0 && this.replayStart + this.replay[0]!.length <= byte) {
      const dropped = this.replay.shift()!;
      this.replayBytes -= dropped.length;
      this.replayStart += dropped.length;
    }
  }

  private onExit(r: Recogniser, code: number | null, signal: NodeJS.Signals | null, fifo: string): void {
    r.exited = true;
    r.input?.destroy();
    void rm(fifo, { force: true });
    if (this.current !== r) return;
    this.deliver(r);
    this.current = null;
    if (this.ending || this.stopped) {
      if (!this.stopped) this.finish();
      return;
    }
    const now = performance.now();
    this.restarts.push(now);
    while (this.restarts[0]! < now - 60_000) this.restarts.shift();
    const context = { code, signal, stderr: r.stderr.trim() || undefined, resumeAt: this.replayStart / BYTES_PER_SECOND };
    if (this.restarts.length > MAX_RESTARTS_PER_MINUTE) {
      this.log?.error(context, "live recogniser keeps dying; no more live words for this stream (the recording is unaffected)");
      this.finish();
      return;
    }
    this.log?.warn(context, "live recogniser stopped unexpectedly; restarted on the audio since its last utterance");
    this.starting = this.startRecogniser();
  }
}
