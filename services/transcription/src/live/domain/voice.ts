// Voice-activity chunking of live 16 kHz mono PCM (§10 "chunker (VAD)"): speech is cut into chunks
// at pauses, so each chunk is an utterance the recogniser sees whole and the words of a sentence
// reach the transcript WebSocket as soon as the speaker stops. Energy-based on 20 ms frames: the
// threshold follows the noise floor (a quiet room and a noisy one both work) but never falls
// below an absolute floor (digital silence is never speech).

export interface VoiceChunkerOptions {
  sampleRate: number;
  /** A frame louder than the noise floor by this much (dB) is voiced. */
  marginDb?: number;
  /** Frames quieter than this (dBFS) are never voiced. */
  floorDb?: number;
  /** Unvoiced time that ends an utterance. */
  pauseMs?: number;
  /** Audio kept before the first voiced frame (the onset of the first word is below threshold). */
  preRollMs?: number;
  /** Longer speech is cut here (at the quietest frame of its last second). */
  maxChunkSeconds?: number;
  /** Utterances with less voiced time than this are clicks and breaths, dropped. */
  minVoicedMs?: number;
}

export interface VoiceChunk {
  /** Seconds from the start of the stream to the chunk's first sample. */
  start: number;
  samples: Int16Array;
  /** pause: the speaker stopped (a sentence end); length: cut inside speech; end: the stream ended. */
  endedBy: "pause" | "length" | "end";
}

const FRAME_MS = 20;

function frameDb(frame: Int16Array): number {
  let sum = 0;
  for (const v of frame) sum += v * v;
  const rms = Math.sqrt(sum / frame.length);
  return rms > 0 ? 20 * Math.log10(rms / 32768) : -120;
}

export class VoiceChunker {
  private readonly frameSize: number;
  private readonly o: Required<Omit<VoiceChunkerOptions, "sampleRate">>;
  private pending = new Int16Array(0);
  /** Frames of the current utterance (or the pre-roll while idle). */
  private frames: Int16Array[] = [];
  private firstFrameIndex = 0;
  private frameIndex = 0;
  private speaking = false;
  private silentRun = 0;
  private voicedFrames = 0;
  private noiseDb = -70;

  constructor(private readonly opts: VoiceChunkerOptions) {
    this.frameSize = Math.round((opts.sampleRate * FRAME_MS) / 1000);
    this.o = {
      marginDb: opts.marginDb ?? 12,
      floorDb: opts.floorDb ?? -50,
      pauseMs: opts.pauseMs ?? 500,
      preRollMs: opts.preRollMs ?? 200,
      maxChunkSeconds: opts.maxChunkSeconds ?? 15,
      minVoicedMs: opts.minVoicedMs ?? 200,
    };
  }

  /** Samples as they arrive; returns the utterances they completed. */
  push(pcm: Int16Array): VoiceChunk[] {
    const all = new Int16Array(this.pending.length + pcm.length);
    all.set(this.pending);
    all.set(pcm, this.pending.length);
    const out: VoiceChunk[] = [];
    let at = 0;
    for (; at + this.frameSize <= all.length; at += this.frameSize) {
      const chunk = this.frame(all.slice(at, at + this.frameSize));
      if (chunk) out.push(chunk);
    }
    this.pending = all.slice(at);
    return out;
  }

  /** The stream ended: the utterance in progress, if it holds speech. */
  flush(): VoiceChunk[] {
    const last = this.speaking ? this.emit(this.frames.length, "end") : null;
    this.reset();
    return last ? [last] : [];
  }

  private frame(frame: Int16Array): VoiceChunk | null {
    const db = frameDb(frame);
    const voiced = db > this.o.floorDb && db > this.noiseDb + this.o.marginDb;
    // The floor follows quiet frames quickly and loud ones slowly (speech must not raise it much).
    this.noiseDb += (db - this.noiseDb) * (db < this.noiseDb ? 0.2 : 0.005);
    const index = this.frameIndex++;
    if (!this.speaking) {
      this.frames.push(frame);
      const preRoll = Math.max(1, Math.round(this.o.preRollMs / FRAME_MS));
      if (this.frames.length > preRoll) this.frames.shift();
      this.firstFrameIndex = index - this.frames.length + 1;
      if (voiced) {
        this.speaking = true;
        this.silentRun = 0;
        this.voicedFrames = 1;
      }
      return null;
    }
    this.frames.push(frame);
    if (voiced) {
      this.voicedFrames++;
      this.silentRun = 0;
    } else {
      this.silentRun++;
    }
    if (this.silentRun * FRAME_MS >= this.o.pauseMs) {
      const chunk = this.emit(this.frames.length, "pause");
      this.reset();
      return chunk;
    }
    if (this.frames.length * FRAME_MS >= this.o.maxChunkSeconds * 1000) {
      // Cut at the quietest frame of the last second, keep the rest as the next chunk's start.
      const look = Math.min(this.frames.length - 1, Math.round(1000 / FRAME_MS));
      let cut = this.frames.length;
      let quietest = Infinity;
      for (let i = this.frames.length - look; i < this.frames.length; i++) {
        const d = frameDb(this.frames[i]!);
        if (d < quietest) [quietest, cut] = [d, i + 1];
      }
      const chunk = this.emit(cut, "length");
      this.frames = this.frames.slice(cut);
      this.firstFrameIndex += cut;
      this.voicedFrames = this.frames.length;
      return chunk;
    }
    return null;
  }

  private emit(frameCount: number, endedBy: VoiceChunk["endedBy"]): VoiceChunk | null {
    if (this.voicedFrames * FRAME_MS < this.o.minVoicedMs) return null;
    const frames = this.frames.slice(0, frameCount);
    const samples = new Int16Array(frames.length * this.frameSize);
    frames.forEach((f, i) => samples.set(f, i * this.frameSize));
    return { start: (this.firstFrameIndex * this.frameSize) / this.opts.sampleRate, samples, endedBy };
  }

  private reset(): void {
    this.frames = [];
    this.speaking = false;
    this.silentRun = 0;
    this.voicedFrames = 0;
    this.firstFrameIndex = this.frameIndex;
  }
}
