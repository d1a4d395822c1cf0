// One live recording (behaviour §10): a WebRTC peer connection (werift) receiving the browser's
// Opus audio, decoded to 16 kHz PCM as it arrives (@scribe/media), which is
//   - written to storage in segments (crash safety; DURATION events as it grows),
//   - recognised as it comes: fed to the backend's stream recogniser when it has one (pocketsphinx:
//     one long-lived process per session that ends utterances at pauses itself), else cut into
//     utterances at pauses here (domain/voice.ts) and each transcribed by the backend; the text is
//     announced as TRANSCRIPT events at sentence ends and gathered into TOPIC events every ~750
//     characters.
// A data-channel `{"cmd":"STOP"}`, the connection closing or failing, the idle timeout or the
// service stopping flush it: the last utterance is transcribed, the last segment stored, and the
// audio handed to the file pipeline (finish.ts) for the finished transcript.
import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SpeechStream, SpeechToText, StreamedUtterance, Summariser, Word } from "@scribe/ai";
import type { TopicRecord } from "@scribe/contracts";
import type { Clock, Logger, ObjectStorage, Sql } from "@scribe/kit";
import { startOpusDecoder, type OpusStreamDecoder } from "@scribe/media";
import { RTCPeerConnection, RTCRtpCodecParameters, type RtpPacket } from "werift";
import type { TranscriptPort } from "../pipelines/port";
import { stableId } from "../pipelines/steps/ids";
import { LIVE_SAMPLE_RATE, pcmMs, putSegment, secondsOfPcm, wavHeader } from "./audio-store";
import { iceServersOf, portRangeOf, type LiveConfig } from "./config";
import { LineAssembler } from "./domain/lines";
import { withPublicAddress } from "./domain/sdp";
import { VoiceChunker, type VoiceChunk } from "./domain/voice";
import { renewLiveSession } from "./store";

/** Characters of new text that make the next live topic (§7.5: the reference accumulates > 750). */
export const TOPIC_CHARS = 750;
const GATHERING_TIMEOUT_MS = 10_000;

export interface LiveDeps {
  sql: Sql;
  log: Logger;
  config: LiveConfig;
  port: TranscriptPort;
  stt: SpeechToText;
  summariser: Summariser;
  bucket: ObjectStorage;
  workDir: string;
  /** The time session rows are stamped with (the service's clock); idleness is measured apart, in elapsed time. */
  clock: Clock;
}

export interface LiveTranscript {
  id: string;
  source_language: string;
  target_language: string;
}

const wav = (samples: Int16Array): Buffer =>
  Buffer.concat([wavHeader(samples.byteLength), Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);

export class LiveSession {
  readonly id = randomUUID();
  private readonly log: Logger;
  private readonly pc: RTCPeerConnection;
  private decoder: OpusStreamDecoder | null = null;
  private readonly chunker = new VoiceChunker({ sampleRate: LIVE_SAMPLE_RATE });
  /** The backend's stream recogniser, when it has one (else the chunker cuts utterances). */
  private recogniser: SpeechStream | null = null;
  private readonly lines = new LineAssembler();
  private segment: Buffer[] = [];
  private segmentBytes = 0;
  private seq = 0;
  private storedBytes = 0;
  private receivedBytes = 0;
  /** performance.now() of the last audio packet: idleness is elapsed time, not a wall-clock reading. */
  private lastAudioAt = performance.now();
  private storing: Promise<void> = Promise.resolve();
  private transcribing: Promise<void> = Promise.resolve();
  private readonly words: Word[] = [];
  private topicFrom = 0;
  private readonly topics: TopicRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped: Promise<void> | null = null;
  /** Set by the registry: hand the audio over (or fail the transcript) once the session is flushed. */
  onFlushed: (session: LiveSession, reason: string) => Promise<void> = async () => {};

  constructor(
    private readonly deps: LiveDeps,
    readonly transcript: LiveTranscript,
  ) {
    this.log = deps.log.child({ component: "live", transcriptId: transcript.id, sessionId: this.id });
    const iceTransportPolicy = deps.config.LIVE_ICE_RELAY_ONLY ? "relay" : "all";
    this.pc = new RTCPeerConnection({
      iceServers: iceServersOf(deps.config),
      icePortRange: portRangeOf(deps.config),
      iceTransportPolicy,
      codecs: { audio: [new RTCRtpCodecParameters({ mimeType: "audio/opus", clockRate: 48_000, channels: 2 })] },
    });
    this.pc.onTrack.subscribe((track) => {
      if (track.kind !== "audio") return;
      track.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp));
    });
    this.pc.onDataChannel.subscribe((channel) => {
      channel.onMessage.subscribe((message) => {
        if (isStop(message)) void this.stop("stop requested");
      });
    });
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === "failed" || state === "closed") void this.stop(`connection ${state}`);
    });
  }

  /** Answer the browser's offer; resolves once ICE gathering completed (candidates are in the SDP). */
  async answer(offerSdp: string): Promise<{ sdp: string; type: "answer" }> {
    await this.pc.setRemoteDescription({ type: "offer", sdp: offerSdp });
    await this.pc.setLocalDescription(await this.pc.createAnswer());
    if (this.pc.iceGatheringState !== "complete") {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, GATHERING_TIMEOUT_MS);
        this.pc.iceGatheringStateChange.subscribe((s) => {
          if (s !== "complete") return;
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const sdp = this.pc.localDescription?.sdp ?? "";
    return { sdp: withPublicAddress(sdp, this.deps.config.LIVE_PUBLIC_ADDRESS || null), type: "answer" };
  }

  /** Start the clock: heartbeats (the session's lease) and the idle timeout. */
  begin(): void {
    this.lastAudioAt = performance.now();
    const everyMs = Math.min(this.deps.config.LIVE_SEGMENT_SECONDS, this.deps.config.LIVE_SESSION_LEASE_SECONDS / 3) * 1000;
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
    // Started now, not at the first packet: loading the model takes about a second.
    this.recogniser =
      this.deps.stt.openStream?.({
        language: this.transcript.source_language,
        onUtterance: (u) => this.onUtterance(u),
      }) ?? null;
    this.log.info({ streaming: this.recogniser !== null }, "live recording started");
  }

  private tick(): void {
    const idleMs = performance.now() - this.lastAudioAt;
    if (idleMs > this.deps.config.LIVE_IDLE_TIMEOUT_SECONDS * 1000) {
      void this.stop(`no audio for ${Math.round(idleMs / 1000)} s`);
      return;
    }
    renewLiveSession(this.deps.sql, this.id, this.storedBytes, this.deps.clock()).catch((e) =>
      this.log.warn({ err: e }, "live session heartbeat failed"),
    );
  }

  private onRtp(rtp: RtpPacket): void {
    if (this.stopped) return;
    this.lastAudioAt = performance.now();
    if (!this.decoder) {
      this.decoder = startOpusDecoder({ sampleRate: LIVE_SAMPLE_RATE, onPcm: (pcm) => this.onPcm(pcm) });
      this.decoder.done.catch((e) => {
        if (this.stopped) return;
        this.log.error({ err: e }, "live audio decoding failed");
        void this.stop("audio decoding failed");
      });
    }
    this.decoder.write(rtp.payload, rtp.header.timestamp);
  }

  private onPcm(pcm: Buffer): void {
    this.receivedBytes += pcm.length;
    this.segment.push(pcm);
    this.segmentBytes += pcm.length;
    if (this.segmentBytes >= secondsOfPcm(this.deps.config.LIVE_SEGMENT_SECONDS)) this.storeSegment();
    if (this.recogniser) {
      this.recogniser.write(pcm);
      return;
    }
    const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
    for (const chunk of this.chunker.push(samples)) this.transcribe(chunk);
  }

  /** An utterance of the stream recogniser: it ended at a pause (or at the end of the stream). */
  private onUtterance(u: StreamedUtterance): void {
    const words = u.words.map((w) => ({ text: w.text, start: w.start, end: w.end, speaker: 0 }));
    this.transcribing = this.transcribing
      .then(() => this.accept(words, true))
      .catch((e) => this.log.warn({ err: e, start: words[0]?.start }, "announcing a live utterance failed"));
  }

  /** The filled segment to storage, then the new duration (DURATION event, transcript duration). */
  private storeSegment(): void {
    if (this.segmentBytes === 0) return;
    const pcm = Buffer.concat(this.segment);
    const seq = this.seq++;
    this.segment = [];
    this.segmentBytes = 0;
    const { bucket, port, sql } = this.deps;
    const id = this.transcript.id;
    this.storing = this.storing.then(async () => {
      try {
        await putSegment(bucket, id, this.id, seq, pcm);
        this.storedBytes += pcm.length;
        await renewLiveSession(sql, this.id, this.storedBytes, this.deps.clock());
        const duration = pcmMs(this.storedBytes);
        await port.update(id, this.id, { duration });
        await port.appendEvent(id, this.id, "DURATION", { duration });
      } catch (e) {
        this.log.error({ err: e, seq }, "storing live audio failed");
      }
    });
  }

  private transcribe(chunk: VoiceChunk): void {
    this.transcribing = this.transcribing.then(async () => {
      try {
        await this.recognise(chunk);
      } catch (e) {
        // One utterance lost to the live view only: the finished transcript is made from the stored audio.
        this.log.warn({ err: e, start: chunk.start }, "live transcription of an utterance failed");
      }
    });
  }

  private async recognise(chunk: VoiceChunk): Promise<void> {
    const dir = join(this.deps.workDir, "live", this.id);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${Math.round(chunk.start * 1000)}.wav`);
    let words: Word[];
    try {
      await writeFile(path, wav(chunk.samples));
      const t = await this.deps.stt.transcribe(path, { language: this.transcript.source_language });
      words = t.words.map((w) => ({ text: w.text, start: round3(chunk.start + w.start), end: round3(chunk.start + w.end), speaker: 0 }));
    } finally {
      await rm(path, { force: true });
    }
    await this.accept(words, chunk.endedBy !== "length");
  }

  /** Recognised words of one utterance; `pause` when the speaker stopped after them. */
  private async accept(words: Word[], pause: boolean): Promise<void> {
    this.words.push(...words);
    await this.announce(this.lines.add(words.map((w) => w.text).join(""), pause));
  }

  private async announce(lines: string[]): Promise<void> {
    const id = this.transcript.id;
    for (const text of lines) await this.deps.port.appendEvent(id, this.id, "TRANSCRIPT", { text, translation: null });
    const fresh = this.words.slice(this.topicFrom);
    if (fresh.map((w) => w.text).join("").length > TOPIC_CHARS) await this.addTopic(fresh);
  }

  /** §7.5 live: a topic of the text since the last one, stored and announced. */
  private async addTopic(words: Word[]): Promise<void> {
    this.topicFrom = this.words.length;
    const t = this.transcript;
    const { title, summary } = await this.deps.summariser.topic(words, {
      participants: [],
      sourceLanguage: t.source_language,
      targetLanguage: t.target_language,
    });
    const topic: TopicRecord = {
      id: stableId(this.id, "topic", this.topics.length),
      title,
      summary,
      timestamp: words[0]!.start,
      duration: 0,
      transcript: words.map((w) => w.text).join(""),
      words,
    };
    this.topics.push(topic);
    await this.deps.port.replaceTopics(t.id, this.id, [...this.topics]);
    await this.deps.port.appendEvent(t.id, this.id, "TOPIC", topic as unknown as Record<string, unknown>);
  }

  /** Flush and hand over; every caller gets the same promise. */
  stop(reason: string): Promise<void> {
    this.stopped ??= (async () => {
      this.log.info({ reason, receivedMs: pcmMs(this.receivedBytes) }, "live recording stopping");
      if (this.timer) clearInterval(this.timer);
      await this.pc.close().catch((e) => this.log.warn({ err: e }, "closing the peer connection failed"));
      await this.decoder?.end().catch(() => {});
      // All decoded audio was written: the recogniser's last utterance comes before `end` resolves.
      if (this.recogniser) await this.recogniser.end();
      else for (const chunk of this.chunker.flush()) this.transcribe(chunk);
      this.storeSegment();
      this.transcribing = this.transcribing
        .then(() => this.announce(this.lines.flush()))
        .catch((e) => this.log.warn({ err: e }, "last live lines lost"));
      await Promise.all([this.storing, this.transcribing]);
      await rm(join(this.deps.workDir, "live", this.id), { recursive: true, force: true });
      await this.onFlushed(this, reason);
    })();
    return this.stopped;
  }

  /** A crash, for tests: everything stops at once, nothing more is stored or handed over. */
  abandon(): void {
    this.stopped ??= Promise.resolve();
    if (this.timer) clearInterval(this.timer);
    this.decoder?.kill();
    this.recogniser?.kill();
    void this.pc.close().catch(() => {});
  }
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

function isStop(message: string | Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(message.toString());
    return typeof parsed === "object" && parsed !== null && (parsed as { cmd?: unknown }).cmd === "STOP";
  } catch {
    return false;
  }
}
